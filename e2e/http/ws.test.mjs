// The graphql-ws client against the real server's websocket: a bad token closes the socket with
// 4401 once (no reconnect storm), the ack carries no payload, a query runs over the socket, a
// socket that sends no connection_init is closed with 4408 after 10 s, and the 21st subscription
// of a socket is refused while its 20 others receive to the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const url = process.env.COUPOND_URL.replace(/^http/, 'ws') + '/query';
const http = process.env.COUPOND_URL + '/query';
const merchant = process.env.COUPOND_MERCHANT_TOKEN;

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

test('a socket that sends no connection_init is closed with 4408 after 10 s', async () => {
  const start = Date.now();
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const code = await new Promise((resolve) => socket.on('close', (c) => resolve(c)));
  const took = Date.now() - start;
  assert.equal(code, 4408);
  assert.ok(took >= 9_900 && took < 12_000, `closed after ${took} ms`);
});

// A PENDING task of the merchant, scheduled an hour ahead: its progress subscriptions stay open.
async function scheduledTask() {
  const post = async (body, headers) => {
    const res = await fetch(http, { method: 'POST', body, headers: { authorization: 'Bearer ' + merchant, ...headers } });
    const json = await res.json();
    assert.equal(json.errors, undefined, JSON.stringify(json.errors));
    return json.data;
  };
  const start = new Date(Date.now() - 60_000).toISOString();
  const end = new Date(Date.now() + 7_200_000).toISOString();
  const { createCouponTemplate: { template } } = await post(JSON.stringify({
    query: `mutation($input: CreateCouponTemplateInput!) { createCouponTemplate(input: $input) { template { id } } }`,
    variables: { input: { name: 'ws limit', source: 'SHOP', target: 'SHOP_WIDE', type: 'FIXED_OFF', validStartTime: start,
      validEndTime: end, stock: 10, limitPerPerson: 1, discountAmount: '1.00' } },
  }), { 'content-type': 'application/json' });
  const form = new FormData();
  form.append('operations', JSON.stringify({
    query: `mutation($input: CreateCouponTaskInput!) { createCouponTask(input: $input) { task { id } userErrors { message } } }`,
    variables: { input: { templateId: template.id, name: 'ws limit', sendType: 'SCHEDULED',
      sendTime: new Date(Date.now() + 3_600_000).toISOString(), file: null } },
  }));
  form.append('map', JSON.stringify({ 0: ['variables.input.file'] }));
  form.append('0', new Blob(['userId\n900001\n'], { type: 'text/csv' }), 'users.csv');
  const { createCouponTask } = await post(form, { 'apollo-require-preflight': 'true' });
  assert.deepEqual(createCouponTask.userErrors, []);
  return { id: createCouponTask.task.id, cancel: () => post(JSON.stringify({
    query: `mutation($id: ID!) { cancelCouponTask(input: { taskId: $id }) { task { status } } }`, variables: { id: createCouponTask.task.id },
  }), { 'content-type': 'application/json' }) };
}

test('the 21st subscription on a socket is refused; the 20 others keep receiving', async () => {
  const task = await scheduledTask();
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { Authorization: 'Bearer ' + merchant } });
  try {
    const follow = () => {
      let first;
      const firstPush = new Promise((resolve) => { first = resolve; });
      const pushes = [];
      const done = new Promise((resolve, reject) => client.subscribe({
        query: 'subscription($id: ID!) { couponTaskProgress(id: $id) { status } }', variables: { id: task.id },
      }, { next: (r) => { pushes.push(r); first(); }, error: reject, complete: () => resolve(pushes) }));
      return { firstPush, done };
    };
    const open = Array.from({ length: 20 }, follow);
    await Promise.all(open.map((s) => s.firstPush));
    const refused = await follow().done;
    assert.equal(refused.length, 1, JSON.stringify(refused));
    assert.equal(refused[0].errors[0].extensions.code, 'RATE_LIMITED');

    await task.cancel();
    for (const pushes of await Promise.all(open.map((s) => s.done))) {
      assert.deepEqual(pushes.map((p) => p.data.couponTaskProgress.status), ['PENDING', 'CANCELED']);
    }
  } finally {
    await client.dispose();
  }
});
