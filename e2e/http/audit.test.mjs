// The graphql-http audit (GraphQL over HTTP) against the real server: every audit, MUST, SHOULD
// and MAY alike, must pass: no errors and no warnings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAudits } from 'graphql-http';

const url = process.env.COUPOND_URL + '/query';

test('graphql-http audit: no errors, no warnings', async () => {
  const failures = [];
  for (const audit of serverAudits({ url })) {
    const result = await audit.fn();
    if (result.status !== 'ok') {
      failures.push(`${result.status} ${audit.name}: ${result.reason}`);
    }
  }
  assert.deepEqual(failures, []);
});
