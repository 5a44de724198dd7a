// The graphql-ws client against the real server's websocket: a bad token closes the socket with
// 4401 once (no reconnect storm), the ack carries no payload, and a query runs over the socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const url = process.env.COUPOND_URL.replace(/^http/, 'ws') + '/query';

function run(client, query) {
  return new Promise((resolve, reject) => {
    const results = [];
    client.subscribe({ query }, {
      next: (r) => results.push(r),
      error: reject,
      complete: () => resolve(results),
    });
  });
}

test('a bad token closes with 4401 and the client does not reconnect', async () => {
  let connecting = 0;
  const closes = [];
  const client = createClient({
    url, webSocketImpl: WebSocket, retryAttempts: 5, retryWait: async () => {},
    connectionParams: { Authorization: 'Bearer not-a-token' },
    on: { connecting: () => connecting++, closed: (e) => closes.push(e.code) },
  });
  await assert.rejects(run(client, '{ __typename }'), (e) => {
    assert.equal(e.code, 4401);
    assert.doesNotMatch(String(e.reason), /not-a-token/);
    return true;
  });
  await new Promise((r) => setTimeout(r, 1000));
  await client.dispose();
  assert.equal(connecting, 1, 'connection attempts');
  assert.deepEqual(closes, [4401]);
});

test('the ack does not echo the init payload; a query runs as the token\'s user', async () => {
  let ackPayload = 'not acknowledged';
  const client = createClient({
    url, webSocketImpl: WebSocket,
    connectionParams: { Authorization: 'Bearer ' + process.env.COUPOND_USER_TOKEN },
    on: { connected: (_socket, payload) => { ackPayload = payload; } },
  });
  try {
    const results = await run(client, '{ myCoupons(first: 1) { totalCount } }');
    assert.deepEqual(results, [{ data: { myCoupons: { totalCount: 0 } } }]);
    assert.ok(ackPayload === undefined || ackPayload === null, `ack payload: ${JSON.stringify(ackPayload)}`);
  } finally {
    await client.dispose();
  }
});

test('an anonymous socket gets UNAUTHENTICATED for a user-only query', async () => {
  const client = createClient({ url, webSocketImpl: WebSocket });
  try {
    const results = await run(client, '{ myCoupons(first: 1) { totalCount } }');
    assert.equal(results[0].errors[0].extensions.code, 'UNAUTHENTICATED');
  } finally {
    await client.dispose();
  }
});
