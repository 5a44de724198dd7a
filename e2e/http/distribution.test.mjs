// A merchant uploads a CSV with fetch's multipart FormData (the GraphQL multipart request spec),
// then follows the task over the websocket with the graphql-ws client: progress arrives batch by
// batch, the last push is SUCCESS with every row accounted for, and the subscription completes.
// Another shop's merchant gets NOT_FOUND for the same subscription.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const http = process.env.COUPOND_URL + '/query';
const url = process.env.COUPOND_URL.replace(/^http/, 'ws') + '/query';
const merchant = process.env.COUPOND_MERCHANT_TOKEN;
const otherShop = process.env.COUPOND_OTHER_MERCHANT_TOKEN;

async function gql(query, variables) {
  const res = await fetch(http, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + merchant },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

async function createTask(templateId, csv) {
  const form = new FormData();
  form.append('operations', JSON.stringify({
    query: `mutation($input: CreateCouponTaskInput!) {
      createCouponTask(input: $input) { task { id status } userErrors { code message } } }`,
    variables: { input: { templateId, name: 'ws push', sendType: 'IMMEDIATE', file: null } },
  }));
  form.append('map', JSON.stringify({ 0: ['variables.input.file'] }));
  form.append('0', new Blob([csv], { type: 'text/csv' }), 'users.csv');
  const res = await fetch(http, {
    method: 'POST', body: form,
    headers: { authorization: 'Bearer ' + merchant, 'apollo-require-preflight': 'true' },
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.data.createCouponTask.userErrors, []);
  return body.data.createCouponTask.task.id;
}

function follow(token, id) {
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { Authorization: 'Bearer ' + token } });
  const pushes = [];
  const done = new Promise((resolve, reject) => {
    client.subscribe({
      query: `subscription($id: ID!) { couponTaskProgress(id: $id) {
        id status processedRows successCount failCount sendNum completedAt } }`,
      variables: { id },
    }, {
      next: (r) => pushes.push(r),
      error: reject,
      complete: () => resolve(pushes),
    });
  });
  return done.finally(() => client.dispose());
}

test('couponTaskProgress pushes each batch and completes after SUCCESS', async () => {
  const start = new Date(Date.now() - 60_000).toISOString();
  const end = new Date(Date.now() + 3_600_000).toISOString();
  const { createCouponTemplate: { template } } = await gql(`mutation($input: CreateCouponTemplateInput!) {
    createCouponTemplate(input: $input) { template { id } userErrors { message } } }`, { input: {
    name: 'ws', source: 'SHOP', target: 'SHOP_WIDE', type: 'FIXED_OFF', validStartTime: start, validEndTime: end,
    stock: 1000, limitPerPerson: 1, discountAmount: '5.00' } });
  const rows = Array.from({ length: 40 }, (_, i) => String(700001 + i));
  rows.push('not-an-id');
  const id = await createTask(template.id, 'userId\n' + rows.join('\n') + '\n');

  const pushes = await follow(merchant, id);
  assert.ok(pushes.every((p) => p.errors === undefined), JSON.stringify(pushes));
  const tasks = pushes.map((p) => p.data.couponTaskProgress);
  const last = tasks.at(-1);
  assert.equal(last.status, 'SUCCESS');
  assert.equal(last.processedRows, 41);
  assert.equal(last.successCount, 40);
  assert.equal(last.failCount, 1);
  assert.ok(last.completedAt);
  const seen = tasks.map((t) => t.processedRows);
  assert.deepEqual([...seen].sort((a, b) => a - b), seen, 'progress never goes back');
  assert.ok(new Set(seen).size >= 3, `several progress pushes (batches of 5), got ${JSON.stringify(seen)}`);

  const other = await follow(otherShop, id).catch((errs) => [{ errors: errs }]);
  assert.equal(other.length, 1, JSON.stringify(other));
  assert.equal(other[0].data?.couponTaskProgress ?? null, null);
  assert.equal(other[0].errors[0].extensions.code, 'NOT_FOUND');
});
