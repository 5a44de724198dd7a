// Apollo Client 3 (it sends Accept: */*... and treats a non-2xx answer as a network error): a
// validation error must reach the application as coded GraphQL errors, after one request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import apollo from '@apollo/client/core/core.cjs';

const { ApolloClient, InMemoryCache, HttpLink, gql } = apollo;
const base = process.env.COUPOND_URL;

function client(counter) {
  return new ApolloClient({
    cache: new InMemoryCache(),
    link: new HttpLink({
      uri: base + '/query',
      headers: { authorization: 'Bearer ' + process.env.COUPOND_USER_TOKEN },
      fetch: (...args) => { counter.n++; return fetch(...args); },
    }),
  });
}

test('Apollo Client 3 sees a validation error as a coded GraphQL error', async () => {
  const counter = { n: 0 };
  await assert.rejects(
    client(counter).query({ query: gql`{ myCoupons(first: 1) { noSuchField } }` }),
    (err) => {
      assert.equal(err.networkError, null, `a network error: ${err.networkError}`);
      assert.equal(err.graphQLErrors.length, 1);
      assert.equal(err.graphQLErrors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED');
      assert.match(err.graphQLErrors[0].message, /noSuchField/);
      return true;
    },
  );
  assert.equal(counter.n, 1, 'requests sent');
});

test('Apollo Client 3 sees a malformed Time as BAD_USER_INPUT', async () => {
  const counter = { n: 0 };
  await assert.rejects(
    client(counter).mutate({
      mutation: gql`mutation($in: CreateCouponTemplateInput!) { createCouponTemplate(input: $in) { userErrors { code } } }`,
      variables: { in: {
        name: 'x', source: 'SHOP', target: 'SHOP_WIDE', type: 'FIXED_OFF', stock: 1, limitPerPerson: 1,
        discountAmount: '1', validStartTime: '2026-13-01T00:00:00Z', validEndTime: '2027-01-01T00:00:00Z',
      } },
    }),
    (err) => {
      assert.equal(err.networkError, null, `a network error: ${err.networkError}`);
      assert.equal(err.graphQLErrors[0].extensions.code, 'BAD_USER_INPUT');
      assert.match(err.graphQLErrors[0].message, /RFC 3339/);
      return true;
    },
  );
});

test('Apollo Client 3 runs a query', async () => {
  const { data } = await client({ n: 0 }).query({ query: gql`{ myCoupons(first: 1) { totalCount } }` });
  assert.equal(data.myCoupons.totalCount, 0);
});
