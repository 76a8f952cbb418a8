// The frame decoder: whole bodies out of chunks cut anywhere, and in time linear in the input.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FrameDecoder, LSP, NDJSON, encode, encodeBody } from '../src/framing.js';

const MESSAGES = [{ text: 'é€😀' }, { big: 'x'.repeat(100_000) }, { n: 1 }, { last: '\u00e9' }];

function decodeAll(framing, input, size) {
  const decoder = new FrameDecoder(framing);
  const bodies = [];
  for (let start = 0; start < input.length; start += size) bodies.push(...decoder.push(input.subarray(start, start + size)));
  return { decoder, messages: bodies.map((body) => JSON.parse(body.toString('utf8'))) };
}

for (const framing of [LSP, NDJSON]) {
  test(`${framing} bodies come out whole however the input is cut (mid-header, mid-character)`, () => {
    let input = Buffer.concat(MESSAGES.map((message) => encode(message, framing)));
    if (framing === NDJSON) input = Buffer.concat([Buffer.from('\n\r\n'), input, Buffer.from('\r\n\n')]);
    for (const size of [1, 2, 3, 7, 4096, 65536, input.length]) {
      const { decoder, messages } = decodeAll(framing, input, size);
      assert.deepEqual(messages, MESSAGES, `cut every ${size} bytes`);
      assert.equal(decoder.partial, false);
    }
  });
}

test('LSP header names are case-insensitive and other headers are ignored', () => {
  const decoder = new FrameDecoder(LSP);
  assert.deepEqual(decoder.push(Buffer.from('content-LENGTH:2  \r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{')), []);
  assert.equal(decoder.partial, true);
  assert.deepEqual(decoder.push(Buffer.from('}')).map(String), ['{}']);
});

test('NDJSON lines read in one chunk all come out of it', () => {
  const decoder = new FrameDecoder(NDJSON);
  assert.deepEqual(decoder.push(Buffer.from('{"a":1}\n{"b":2}\n{"c"')).map(String), ['{"a":1}', '{"b":2}']);
  assert.equal(decoder.partial, true);
  assert.deepEqual(decoder.push(Buffer.from(':3}\n')).map(String), ['{"c":3}']);
});

for (const framing of [LSP, NDJSON]) {
  test(`a ${framing} body of many chunks is gathered in time linear in its length`, () => {
    // A readFile answer of 16 MiB is 22 MiB of base64; the pipe hands it over 64 KiB at a time.
    // Joining every chunk onto all the ones before took some 10 s of CPU for this one; linear, tens of ms.
    const body = Buffer.alloc(40 * 1024 * 1024, 0x61);
    body[0] = 0x22;
    body[body.length - 1] = 0x22;
    const input = encodeBody(body, framing);
    const started = performance.now();
    const decoder = new FrameDecoder(framing);
    let bodies = 0;
    for (let start = 0; start < input.length; start += 65536) bodies += decoder.push(input.subarray(start, start + 65536)).length;
    const took = performance.now() - started;
    assert.equal(bodies, 1);
    assert.ok(took < 2000, `a body of 40 MiB in chunks of 64 KiB took ${Math.round(took)} ms to gather`);
  });
}
