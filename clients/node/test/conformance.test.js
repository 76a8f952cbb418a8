// Every transcript of protocol/conformance/, replayed against the real binary.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { assign, matches, parseJSON, run } from '../test-support/conformance.js';
import { wharfPath } from '../test-support/support.js';

const folder = fileURLToPath(new URL('../../../protocol/conformance/', import.meta.url));
const names = readdirSync(folder).filter((name) => name.endsWith('.json')).sort();

test('there are transcripts to replay', () => {
  assert.ok(names.length >= 10);
});

for (const name of names) {
  test(`transcript ${name} replays against the binary`, async () => {
    await run(wharfPath(), parseJSON(readFileSync(folder + name, 'utf8')));
  });
}

test('the matcher binds, compares and keeps big ids exact', () => {
  const captures = {};
  assert.ok(matches({ id: 1, result: { dialogId: 'd1' } }, { result: { dialogId: '$d' } }, captures));
  assert.deepEqual(captures, { d: 'd1' });
  assert.ok(!matches({ params: { dialogId: 'd2' } }, { params: { dialogId: '$d' } }, captures));
  assert.ok(matches([3, 1, 2], { $unordered: [1, 2, 3] }, captures));
  assert.ok(!matches({ a: 1 }, { a: { $absent: true } }, captures));
  const big = parseJSON('{"id":9007199254740993}');
  assert.equal(big.id, 9007199254740993n);
  assert.ok(!matches(parseJSON('{"id":9007199254740992}'), big, {}));
});

test('expectAll keeps the server\'s own messages in order, responses anywhere', () => {
  const response = { id: 1, result: {} };
  const first = { method: 'dialog/presentationChanged' };
  const last = { method: 'dialog/completed' };
  assert.ok(assign([first, response, last], [response, first, last], {}, true));
  assert.ok(!assign([last, response, first], [response, first, last], {}, true));
});
