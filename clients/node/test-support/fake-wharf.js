#!/usr/bin/env node
// A stand-in for wharf that misbehaves on purpose (see clients/python/tests/fake_wharf.py):
//   dies-mid-dialog  answers initialize and presentImporter, then exits with status 3 at the
//                    next request without answering it;
//   early-events     sends a dialog's notifications before the presentImporter answer;
//   slow             answers every ping after one second;
//   wedged           never answers a ping; on `$/cancelRequest` {id} it says so (notification
//                    `fake/cancelRequest` {id}) and then answers that request anyway, late;
//   deaf             answers initialize, then nothing, and does not end when its input does;
//   late-present     answers presentImporter only after `$/cancelRequest` for it, with a dialog
//                    (the answer crossed the cancel); `cancel` ends that dialog as wharf does;
//   splits-a-character  as dies-mid-dialog, but its last words end in ⛵ (U+26F5, three
//                    bytes in UTF-8), written in two pieces 200 ms apart, split after its first byte;
//   closes-output    answers initialize and presentImporter; at the next request it closes its
//                    standard output and lives on, answering nothing, until it is killed;
//   asks             answers presentExporter with dialog d1 (left open); on the request
//                    `fake/ask` {requests: [{method, params?}, …]} it sends each as a request of
//                    its own to the client, and answers `fake/ask` with the client's answers
//                    (result or error), in order.
import { closeSync } from 'node:fs';

import { FrameDecoder, encode } from '../src/framing.js';

const mode = process.argv[2];
const decoder = new FrameDecoder();
const send = (message) => process.stdout.write(encode(message));
const answer = (request, result) => send({ jsonrpc: '2.0', id: request.id, result });
const notify = (method, params) => send({ jsonrpc: '2.0', method, params });
// asks: the client's answers to the requests a `fake/ask` sent, by their id, and who waits for them.
const asked = new Map();
let asking = null;

process.stdin.on('data', (chunk) => {
  for (const body of decoder.push(chunk)) {
    const request = JSON.parse(body.toString());
    if (mode === 'deaf' && request.method !== 'initialize') continue;
    if (mode === 'asks' && !('method' in request) && asked.has(request.id)) {
      const { result, error } = request;
      asked.set(request.id, error ? { error } : { result });
      if ([...asked.values()].every((answer) => answer !== null)) answer(asking, [...asked.values()]);
      continue;
    }
    if (mode === 'asks' && request.method === 'fake/ask') {
      asking = request;
      request.params.requests.forEach((ask, index) => {
        asked.set(`ask-${index}`, null);
        send({ jsonrpc: '2.0', id: `ask-${index}`, ...ask });
      });
      continue;
    }
    if (mode === 'asks' && request.method === 'presentExporter') {
      answer(request, { dialogId: 'd1' });
      continue;
    }
    if (!('id' in request)) {
      if (request.method === 'exit') process.exit(0);
      if (request.method === '$/cancelRequest' && mode === 'wedged') {
        notify('fake/cancelRequest', request.params);
        answer(request.params, {});
      }
      if (request.method === '$/cancelRequest' && mode === 'late-present') answer(request.params, { dialogId: 'd-late' });
      continue;
    }
    switch (request.method) {
      case 'initialize':
        answer(request, { serverInfo: { name: 'wharf', version: 'fake' }, protocolVersion: '0.1', capabilities: {} });
        break;
      case 'presentImporter':
        if (mode === 'late-present') break;
        if (mode === 'early-events') {
          notify('dialog/presentationChanged', { dialogId: 'd1', isPresented: false });
          notify('dialog/completed', { dialogId: 'd1', kind: 'importer', urls: ['file:///early.txt'] });
        }
        answer(request, { dialogId: 'd1' });
        break;
      case 'shutdown':
        answer(request, null);
        break;
      default:
        if (mode === 'closes-output') {
          process.stdout.write('', () => closeSync(1));
          return;
        }
        if (mode === 'splits-a-character') {
          const sailboat = Buffer.from('⛵\n');
          process.stderr.write(Buffer.concat([Buffer.from('fake wharf: sailing off '), sailboat.subarray(0, 1)]), () => {
            setTimeout(() => process.stderr.write(sailboat.subarray(1), () => process.exit(3)), 200);
          });
          return;
        }
        if (mode === 'dies-mid-dialog') {
          process.stderr.write('fake wharf: dying on purpose\n', () => process.exit(3));
          return;
        }
        if (request.method === 'ping' && mode === 'wedged') break;
        if (request.method === 'cancel' && mode === 'late-present') {
          notify('dialog/presentationChanged', { dialogId: request.params.dialogId, isPresented: false });
          notify('dialog/cancelled', { dialogId: request.params.dialogId, kind: 'importer', reason: 'client' });
          answer(request, { cancelled: true });
          break;
        }
        if (request.method === 'ping') setTimeout(() => answer(request, {}), mode === 'slow' ? 1000 : 0);
        else send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `no ${request.method}` } });
    }
  }
});
process.stdin.on('end', () => { if (mode !== 'deaf' && mode !== 'closes-output') process.exit(1); });
// Keeps a deaf fake, or one without output, alive after its input ends (until it is killed).
if (mode === 'deaf' || mode === 'closes-output') setInterval(() => {}, 1000);
