// The client's API against the real binary (and a misbehaving fake where the real one behaves).
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { PassThrough } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import {
  ConnectionLost, DEFAULT_REQUEST_TIMEOUT_MS, DialogCancelled, DialogFailed, EVENTS_KEPT, INSTALLED_LOCATIONS, NO_HANDLER_MESSAGE, RequestError,
  WharfClient, WharfError, WharfTimeout, encode, findWharf, urlToPath,
} from '../src/index.js';
import { scratch, wharfPath } from '../test-support/support.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const url = (path) => pathToFileURL(path).href;

function photos(t) {
  const folder = join(scratch(t), 'photos');
  mkdirSync(folder);
  for (const name of ['a.png', 'b.png']) writeFileSync(join(folder, name), PNG);
  writeFileSync(join(folder, 'notes.txt'), 'not a photo\n');
  return folder;
}

function script(t, steps) {
  const path = join(scratch(t), 'script.json');
  writeFileSync(path, JSON.stringify(steps));
  return ['--presenter', `script:${path}`, '--state-dir', ':memory:'];
}

async function spawn(t, options) {
  const client = await WharfClient.spawn({ wharf: wharfPath(), ...options });
  t.after(() => client.close());
  return client;
}

function fake(t, mode, options = {}) {
  const launcher = join(scratch(t), `fake-${mode}.sh`);
  writeFileSync(launcher, `#!/bin/sh\nexec ${process.execPath} ${fileURLToPath(new URL('../test-support/fake-wharf.js', import.meta.url))} ${mode}\n`);
  chmodSync(launcher, 0o755);
  return spawn(t, { wharf: launcher, ...options });
}

test('an importer with the script presenter resolves to URLs and streams its events', async (t) => {
  const folder = photos(t);
  const client = await spawn(t, { args: script(t, [{ expect: { allowsMultipleSelection: true } }, { choose: [join(folder, 'a.png'), join(folder, 'b.png')] }]) });
  const dialog = await client.presentImporter(['public.image'], { multiple: true, title: 'Photos' });
  assert.deepEqual(await dialog.result(), [url(join(folder, 'a.png')), url(join(folder, 'b.png'))]);
  const kinds = [];
  for await (const event of dialog) kinds.push(event.kind);
  assert.deepEqual(kinds, ['presentationChanged', 'completed']);
});

test('a listener that throws is reported and ignored: the reading goes on and the dialog still ends', async (t) => {
  const folder = scratch(t);
  writeFileSync(join(folder, 'a.png'), '');
  const client = await spawn(t, { args: script(t, [{ delayMs: 200 }, { choose: [join(folder, 'a.png')] }]) });
  const warnings = [];
  const heard = (warning) => { if (warning.name === 'WharfWarning') warnings.push(warning.message); };
  process.on('warning', heard);
  t.after(() => process.off('warning', heard));
  const notified = [];
  client.on('notification', () => { throw new Error('a notification listener failed'); });
  client.on('notification', (method) => notified.push(method));
  client.on('traffic', () => { throw new Error('a traffic listener failed'); });
  const dialog = await client.presentImporter(['public.image']);
  dialog.on('event', () => { throw new Error('an event listener failed'); });
  assert.deepEqual(await dialog.result(), [url(join(folder, 'a.png'))]);
  assert.ok(notified.includes('dialog/completed'), 'the listener after the one that threw still heard every notification');
  await client.ping();  // still answered
  await new Promise((resolve) => setImmediate(resolve));  // warnings are emitted on the next tick
  for (const what of ['notification', 'traffic', 'event']) {
    assert.ok(warnings.some((message) => message.includes(`'${what}' listener threw`)), `${what}: ${warnings}`);
  }
});

test('a dismissed dialog rejects with DialogCancelled and its reason', async (t) => {
  const client = await spawn(t, { args: script(t, [{ dismiss: true }]) });
  const dialog = await client.presentImporter(['public.item']);
  await assert.rejects(dialog.result(), (error) => error instanceof DialogCancelled && error.reason === 'user');
  assert.equal(await dialog.cancel(), false, 'cancelling an ended dialog answers false');
});

test('withAccess releases the lease even when the body throws', async (t) => {
  const folder = photos(t);
  const client = await spawn(t, { args: script(t, [{ choose: [join(folder, 'notes.txt')] }]) });
  const [picked] = await (await client.presentImporter(['public.plain-text'])).result();
  const text = await client.withAccess(picked, async (path) => {
    assert.equal((await client.listAccess()).activeLeases, 1);
    return readFileSync(path, 'utf8');
  });
  assert.equal(text, 'not a photo\n');
  await assert.rejects(client.withAccess(picked, async () => { throw new Error('the editor crashed'); }), /the editor crashed/);
  assert.equal((await client.listAccess()).activeLeases, 0);
  await assert.rejects(client.resolveAccess({ url: url(join(folder, 'a.png')) }),
    (error) => error instanceof RequestError && error.codeName === 'accessDenied');
});

test('an error thrown by the withAccess body is not replaced by a failed release', async (t) => {
  // The release in withAccess's finally rejected over the body's own error: the caller saw
  // accessNotFound (or a WharfTimeout) where its code had thrown, and its error was lost.
  const folder = photos(t);
  const client = await spawn(t, { args: script(t, [{ choose: [join(folder, 'notes.txt')] }]) });
  const [picked] = await (await client.presentImporter(['public.plain-text'])).result();
  const leases = [];
  client.on('traffic', (direction, message) => { if (direction === 'receive' && message.result?.accessId) leases.push(message.result.accessId); });
  const heard = [];
  client.on('error', (error) => heard.push(error));
  const crash = new Error('the editor crashed');
  await assert.rejects(client.withAccess(picked, async () => {
    await client.releaseAccess(leases[0]);  // released behind its back: the scoped release fails
    throw crash;
  }), (error) => error === crash);
  assert.equal(heard.length, 1, 'the release failure was not reported');
  assert.ok(heard[0] instanceof RequestError && heard[0].codeName === 'accessNotFound', String(heard[0]));
  // When the body did not throw, a failed release is the rejection.
  await assert.rejects(client.withAccess(picked, () => client.releaseAccess(leases[1])),
    (error) => error instanceof RequestError && error.codeName === 'accessNotFound');
  assert.equal(heard.length, 1);
  // With no `error` listener, the release failure becomes a process warning.
  client.removeAllListeners('error');
  const warned = new Promise((resolve) => process.once('warning', resolve));
  await assert.rejects(client.withAccess(picked, async () => {
    await client.releaseAccess(leases[2]);
    throw crash;
  }), (error) => error === crash);
  const warning = await warned;
  assert.equal(warning.name, 'WharfWarning');
  assert.match(warning.message, new RegExp(`releasing access ${leases[2]} failed .*accessNotFound`));
  assert.equal((await client.listAccess()).activeLeases, 0);
});

test('withAccess opens the file picked when its name is not UTF-8, not the one its display path names', async (t) => {
  // `x` + the byte 0xFF, and `x` + U+FFFD: the lease's display path reads the same for both.
  const folder = scratch(t);
  const picked = Buffer.concat([Buffer.from(`${folder}/x`), Buffer.from([0xff]), Buffer.from('.txt')]);
  writeFileSync(picked, 'picked\n');
  writeFileSync(join(folder, 'x\ufffd.txt'), 'its look-alike\n');
  const chosen = `${url(folder)}/x%FF.txt`;
  const client = await spawn(t, { args: script(t, [{ choose: [chosen] }]) });
  const [pickedURL] = await (await client.presentImporter(['public.plain-text'])).result();
  assert.equal(pickedURL, chosen);
  const [path, text] = await client.withAccess(pickedURL, (path) => [path, readFileSync(path, 'utf8')]);
  assert.deepEqual(path, picked);
  assert.equal(text, 'picked\n');
});

test('urlToPath decodes local file URLs to their exact bytes: a string when they are UTF-8', () => {
  assert.equal(urlToPath('file:///tmp/caf%C3%A9%20x'), '/tmp/café x');
  assert.equal(urlToPath('file://localhost/tmp/a%23b%3Fc'), '/tmp/a#b?c');
  assert.deepEqual(urlToPath('file:///tmp/x%FF'), Buffer.from('/tmp/x\xff', 'latin1'));
  for (const bad of ['http://example.com/a', 'file://example.com/a', 'file:///tmp/a?b', 'file:///tmp/a#b', '/tmp/a']) {
    assert.throws(() => urlToPath(bad), TypeError, bad);
  }
});

test('the frontend role lists, is refused, and chooses', async (t) => {
  const folder = photos(t);
  copyFileSync(join(folder, 'a.png'), join(folder, '.hidden.png'));
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  const seen = {};
  client.onPresent(async (presentation) => {
    seen.title = presentation.title;
    seen.names = [];
    for await (const entry of presentation.entries()) if (entry.enabled) seen.names.push(entry.name);
    seen.shown = (await presentation.list({ showHidden: true })).entries.filter((entry) => entry.enabled).map((entry) => entry.name);
    await assert.rejects(presentation.choose([url(join(folder, 'notes.txt'))]), (error) => { seen.rejected = error.codeName; return true; });
    await presentation.choose([url(join(folder, 'b.png'))]);
  });
  const dialog = await client.presentImporter(['public.image'], { title: 'Pick one', defaultDirectory: folder });
  assert.deepEqual(await dialog.result(), [url(join(folder, 'b.png'))]);
  assert.deepEqual(seen, { title: 'Pick one', names: ['a.png', 'b.png'], rejected: 'choiceRejected', shown: ['.hidden.png', 'a.png', 'b.png'] });
});

test('presentMover moves granted files, and the frontend settles a taken name', async (t) => {
  const folder = scratch(t);
  mkdirSync(join(folder, 'src'));
  mkdirSync(join(folder, 'dst'));
  writeFileSync(join(folder, 'src', 'a.txt'), 'new\n');
  writeFileSync(join(folder, 'src', 'b.txt'), 'b\n');
  writeFileSync(join(folder, 'dst', 'a.txt'), 'old\n');
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  const seen = {};
  client.onPresent(async (presentation) => {
    if (presentation.kind === 'importer') {
      await presentation.choose([url(join(folder, 'src', 'b.txt')), url(join(folder, 'src', 'a.txt'))]);
      return;
    }
    seen.files = presentation.moverUrls;
    await assert.rejects(presentation.move(url(join(folder, 'dst'))), (error) => {
      seen.refused = [error.codeName, error.data.names];
      return true;
    });
    await presentation.move(url(join(folder, 'dst')), { conflictResolution: 'keepBoth' });
  });
  const picked = await (await client.presentImporter(['public.plain-text'], { multiple: true })).result();
  await assert.rejects(client.presentMover([url(join(folder, 'src', 'nothing-granted.txt'))]),
    (error) => error instanceof RequestError && error.codeName === 'accessDenied');
  const moved = await (await client.presentMover(picked, { title: 'Move to' })).result();
  assert.deepEqual(seen, { files: picked, refused: ['nameConflict', ['a.txt']] });
  assert.deepEqual(moved, [url(join(folder, 'dst', 'b.txt')), url(join(folder, 'dst', 'a 2.txt'))]);
  assert.equal(readFileSync(join(folder, 'dst', 'a.txt'), 'utf8'), 'old\n');
  assert.equal(readFileSync(join(folder, 'dst', 'a 2.txt'), 'utf8'), 'new\n');
  await assert.rejects(client.resolveAccess({ url: picked[1] }), (error) => error.codeName === 'accessDenied');
  const lease = await client.resolveAccess({ url: moved[1] });
  assert.equal(lease.readOnly, true);
});

test('a mover the script cannot answer fails with nameConflict and moves nothing', async (t) => {
  const folder = scratch(t);
  mkdirSync(join(folder, 'dst'));
  writeFileSync(join(folder, 'a.txt'), 'new\n');
  writeFileSync(join(folder, 'dst', 'a.txt'), 'old\n');
  const client = await spawn(t, { args: script(t, [{ choose: [join(folder, 'a.txt')] }, { choose: [join(folder, 'dst')] }]) });
  const picked = await (await client.presentImporter(['public.plain-text'])).result();
  const dialog = await client.presentMover(picked);
  await assert.rejects(dialog.result(), (error) => error instanceof DialogFailed && error.code === -32031);
  assert.equal(readFileSync(join(folder, 'a.txt'), 'utf8'), 'new\n');
});

test('an AbortSignal cancels the dialog and hides the presentation', async (t) => {
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  const controller = new AbortController();
  const hidden = new Promise((resolve) => client.onPresent((presentation) => {
    presentation.once('hide', resolve);
    controller.abort();
  }));
  const dialog = await client.presentImporter(['public.item'], { signal: controller.signal });
  await assert.rejects(dialog.result(), (error) => error instanceof DialogCancelled && error.reason === 'client');
  await hidden;
  await assert.rejects(client.presentImporter(['public.item'], { signal: controller.signal }), { name: 'AbortError' });
});

test('a lazy export asks for its snapshot and writes it', async (t) => {
  const folder = scratch(t);
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  client.onPresent((presentation) => presentation.save(url(join(folder, 'out.txt'))));
  const asked = [];
  const dialog = await client.presentExporter([{
    writableContentTypes: ['public.plain-text'], filename: 'out',
    snapshot: async (contentType) => { asked.push(contentType); return 'made on demand\n'; },
  }]);
  assert.deepEqual(await dialog.result(), [url(join(folder, 'out.txt'))]);
  assert.deepEqual(asked, ['public.plain-text']);
  assert.deepEqual(dialog.contentTypes, ['public.plain-text']);
  assert.equal(readFileSync(join(folder, 'out.txt'), 'utf8'), 'made on demand\n');
});

/** A full garbage collection, after the current job (WeakRefs made or read in it hold their targets until it ends). */
async function collectGarbage() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

/**
 * Presents `count` lazy exports, each with a snapshot function capturing a buffer of its own
 * (a WeakRef to each buffer goes onto `captured`), waits for each to end, and returns the
 * Dialogs. A function of its own, as is `weakly`: a suspended async function keeps stale values
 * in its registers, and the test's own frame must hold no dialog or buffer.
 */
async function endLazyExports(client, count, captured) {
  const dialogs = [];
  for (let i = 0; i < count; i++) {
    const buffer = { text: 'made on demand\n' };
    captured.push(new WeakRef(buffer));
    const dialog = await client.presentExporter([{ writableContentTypes: ['public.plain-text'], snapshot: () => buffer.text }]);
    await dialog.result().catch((error) => { if (!(error instanceof DialogCancelled)) throw error; });
    dialogs.push(dialog);
  }
  return dialogs;
}

/** Empties `list`, returning a WeakRef to each thing it held. */
function weakly(list) {
  return list.splice(0).map((item) => new WeakRef(item));
}

test('ended dialogs are forgotten, with their snapshot functions', async (t) => {
  // The client kept every dialog it had presented, and with it the snapshot functions and all
  // they captured, for as long as it ran: a long-running editor leaked each export's buffer.
  const folder = scratch(t);
  let turn = 0;
  const client = await spawn(t, {
    args: ['--state-dir', ':memory:'], presentsDialogs: true,
    // Every other dialog is saved, the rest dismissed: both final events are covered.
    onPresent: (presentation) => (turn++ % 2 ? presentation.dismiss() : presentation.save(url(join(folder, 'out.txt')), { overwrite: true })),
  });
  const captured = [];
  const kept = await endLazyExports(client, 6, captured);
  // What the app kept still tells how each ended.
  assert.deepEqual(kept.map((dialog) => dialog.events.at(-1).kind), ['completed', 'cancelled', 'completed', 'cancelled', 'completed', 'cancelled']);
  // The snapshot functions are let go of at the end, even while the app keeps its Dialogs …
  await collectGarbage();
  assert.deepEqual(captured.map((ref) => ref.deref()), Array(6).fill(undefined), 'a snapshot function outlived its dialog');
  // … and the Dialogs themselves once the app drops them.
  const dialogs = weakly(kept);
  await collectGarbage();
  assert.deepEqual(dialogs.map((ref) => ref.deref() === undefined), Array(6).fill(true), 'the client still holds ended dialogs');
  await client.ping();  // and it goes on
});

test('an exporter/snapshot whose params are not an object is answered invalid params', async (t) => {
  // Params that were an array or a string were answered -32602 already, but as "document
  // undefined of undefined has no snapshot function"; a documentIndex of "1" found document 1.
  const client = await fake(t, 'asks');
  await client.presentExporter([
    { writableContentTypes: ['public.plain-text'], snapshot: () => 'lazy\n' },
    { writableContentTypes: ['public.plain-text'], snapshot: () => 'second\n' },
  ]);
  const asks = [
    [{ method: 'exporter/snapshot', params: [0] }, -32602],
    [{ method: 'exporter/snapshot', params: 'd1' }, -32602],
    [{ method: 'exporter/snapshot' }, -32602],
    [{ method: 'exporter/snapshot', params: { dialogId: 'd1', documentIndex: '1', contentType: 'public.plain-text' } }, -32602],
    [{ method: 'exporter/thumbnail', params: { dialogId: 'd1' } }, -32601],
    [{ method: 'exporter/snapshot', params: { dialogId: 'd1', documentIndex: 0, contentType: 'public.plain-text' } }, { text: 'lazy\n' }],
  ];
  const answers = await client.request('fake/ask', { requests: asks.map(([ask]) => ask) });
  assert.deepEqual(answers.map((answer) => answer.error?.code ?? answer.result), asks.map(([, expected]) => expected));
  for (const answer of answers.slice(0, 3)) assert.match(answer.error.message, /^exporter\/snapshot params must be an object/);
});

test('a failing snapshot fails the dialog and writes nothing', async (t) => {
  const folder = scratch(t);
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  client.onPresent((presentation) => presentation.save(url(join(folder, 'out.txt'))));
  const dialog = await client.presentExporter([{ writableContentTypes: ['public.plain-text'], snapshot: () => { throw new Error('the renderer crashed'); } }]);
  await assert.rejects(dialog.result(), (error) => error instanceof DialogFailed && error.code === -32041 && /renderer crashed/.test(error.serverMessage));
  assert.ok(!existsSync(join(folder, 'out.txt')));
});

test('the server dying mid-dialog fails every open dialog and later call', async (t) => {
  // A handler that draws nothing and returns: the dialogs stay open.
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true, onPresent: () => {} });
  const first = await client.presentImporter(['public.item']);
  const second = await client.presentImporter(['public.image']);
  client.child.kill('SIGKILL');
  for (const dialog of [first, second]) {
    await assert.rejects(dialog.result(), (error) => error instanceof ConnectionLost && /killed by SIGKILL/.test(error.message));
  }
  await assert.rejects(client.ping(), ConnectionLost);
});

test('a pending request fails with the server\'s last words when it dies', async (t) => {
  const client = await fake(t, 'dies-mid-dialog');
  const dialog = await client.presentImporter(['public.item']);
  await assert.rejects(client.ping(), (error) => error instanceof ConnectionLost && /status 3/.test(error.message));
  await assert.rejects(dialog.result(), (error) => error instanceof ConnectionLost && /dying on purpose/.test(error.message));
});

test('the server\'s last words keep a character whose bytes came in two pieces', async (t) => {
  // Each chunk of standard error was decoded on its own: ⛵'s first byte, then its other two,
  // became three U+FFFD instead of ⛵.
  const client = await fake(t, 'splits-a-character');
  await assert.rejects(client.ping(), (error) => {
    assert.ok(error instanceof ConnectionLost, String(error));
    assert.match(error.message, /status 3; its last words: fake wharf: sailing off ⛵$/);
    return true;
  });
});

test('a server that closes its output and lives on fails every pending call and open dialog at once', { timeout: 5000 }, async (t) => {
  const client = await fake(t, 'closes-output', { requestTimeoutMs: 0 });
  const dialog = await client.presentImporter(['public.item']);
  // Nothing more can come: the ping and the dialog fail within the exit grace, not never.
  await assert.rejects(client.ping(), (error) => error instanceof ConnectionLost && /closed its output/.test(error.message));
  await assert.rejects(dialog.result(), ConnectionLost);
  assert.equal(client.child.exitCode, null, 'the fake lives on');
  assert.equal(await client.close({ timeoutMs: 200 }), null);
  assert.equal(client.child.signalCode, 'SIGKILL');
});

test('events that arrive before the present answer reach the dialog', async (t) => {
  const client = await fake(t, 'early-events');
  const dialog = await client.presentImporter(['public.item']);
  assert.deepEqual(await dialog.result(), ['file:///early.txt']);
});

test('waiting on a slow server does not spin', async (t) => {
  const client = await fake(t, 'slow');
  const before = process.cpuUsage();
  await client.ping();
  const used = process.cpuUsage(before);
  // A busy wait would burn about the whole second; waiting on events burns almost nothing.
  assert.ok(used.user + used.system < 500_000, `waiting one second cost ${(used.user + used.system) / 1e6} s of CPU`);
});

test('a request the server never answers times out, is cancelled, and its late answer is ignored', { timeout: 5000 }, async (t) => {
  const client = await fake(t, 'wedged');
  client.requestTimeoutMs = 200;  // after initialize, which waits for the fake to start
  const sent = [];
  client.on('traffic', (direction, message) => { if (direction === 'send') sent.push(message); });
  const cancelled = new Promise((resolve) => client.on('notification', (method, params) => { if (method === 'fake/cancelRequest') resolve(params.id); }));
  const started = performance.now();
  await assert.rejects(client.ping(), (error) => error instanceof WharfTimeout && error instanceof WharfError
    && error.message === 'ping got no answer within 0.2 s');
  const waited = performance.now() - started;
  assert.ok(waited >= 190, `timed out after ${waited} ms, before the 200 ms asked for`);
  const { id } = sent.find((message) => message.method === 'ping');
  assert.deepEqual(sent.at(-1), { jsonrpc: '2.0', method: '$/cancelRequest', params: { id } });
  assert.equal(await cancelled, id, 'the server heard $/cancelRequest for the ping');
  // The fake answered the ping after that; the next answer comes after it, and the client is fine.
  await assert.rejects(client.request('x/next'), (error) => error instanceof RequestError && error.code === -32601);
  assert.equal(client.closedReason, null);
});

test('a present that times out but is answered anyway has its dialog cancelled', { timeout: 5000 }, async (t) => {
  const client = await fake(t, 'late-present');
  client.requestTimeoutMs = 100;  // after initialize, which waits for the fake to start
  const sent = [];
  client.on('traffic', (direction, message) => { if (direction === 'send') sent.push(message); });
  const ended = new Promise((resolve) => client.on('notification', (method, params) => { if (method === 'dialog/cancelled') resolve(params.dialogId); }));
  await assert.rejects(client.presentImporter(['public.item']), WharfTimeout);
  // The answer crossed the cancel: the dialog it names is open, and nobody waits for it.
  assert.equal(await ended, 'd-late');
  assert.ok(sent.some((message) => message.method === 'cancel' && message.params.dialogId === 'd-late'),
    'the client cancelled the dialog its late answer named');
  await client.ping();
});

test('sends wait for the pipe to drain: a wharf that reads nothing does not make the client buffer every request', { timeout: 30000 }, async (t) => {
  // write()'s false was ignored, so each message was copied into the pipe's stream buffer: 40
  // requests of 256 KiB to a stopped wharf held 10 MiB there, and as much more as were sent.
  const client = await spawn(t, { args: ['--state-dir', ':memory:'] });
  const { pid, stdin } = client.child;
  const padding = 'x'.repeat(1 << 18);
  let pings;
  let buffered;
  process.kill(pid, 'SIGSTOP');
  try {
    pings = Array.from({ length: 40 }, () => client.request('ping', { padding }));
    buffered = stdin.writableLength;
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  // The stream holds the message it was writing when it said wait, no more.
  assert.ok(buffered <= 2 * padding.length, `${buffered} bytes buffered for a wharf that reads nothing`);
  // Once wharf reads again, what waited is written, in order, and answered.
  await Promise.all(pings);
  assert.equal(stdin.writableLength, 0);
});

test('a request that times out while waiting for the pipe to drain is never sent, nor reported to traffic as sent', { timeout: 30000 }, async (t) => {
  // traffic heard each message as it was queued, so a transcript showed requests that were
  // taken out unsent (and never reached wharf) as sent.
  const client = await spawn(t, { args: ['--state-dir', ':memory:'] });
  const { pid } = client.child;
  const sent = [];
  client.on('traffic', (direction, message) => { if (direction === 'send') sent.push(message); });
  client.requestTimeoutMs = 200;
  process.kill(pid, 'SIGSTOP');
  try {
    const padding = 'x'.repeat(1 << 18);
    const pings = Array.from({ length: 5 }, () => client.request('ping', { padding }));
    for (const ping of pings) await assert.rejects(ping, WharfTimeout);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  client.requestTimeoutMs = 10_000;
  await client.ping();  // wharf reads on: the one ping it was given, its cancel, and this
  // Only the first had been handed to the pipe: the server is told to drop it, and the others,
  // taken out unsent, need no $/cancelRequest.
  // traffic reports only what was written: that ping, its cancel, and the last.
  assert.deepEqual(sent.map((message) => message.method), ['ping', '$/cancelRequest', 'ping']);
  assert.equal(sent[1].params.id, sent[0].id);
});

test('close() kills a server that neither answers nor exits', { timeout: 5000 }, async (t) => {
  const client = await fake(t, 'deaf');
  assert.equal(await client.close({ timeoutMs: 200 }), null);
  assert.equal(client.child.signalCode, 'SIGKILL');
});

test('close({timeoutMs}) bounds the whole close of a wharf that does not answer', { timeout: 15000 }, async (t) => {
  // The wait for the shutdown answer and the wait for the exit each had the whole timeout:
  // a stopped wharf held close({timeoutMs: 2000}) for 4 s before it was killed.
  const client = await spawn(t, { args: ['--state-dir', ':memory:'] });
  process.kill(client.child.pid, 'SIGSTOP');
  const started = performance.now();
  assert.equal(await client.close({ timeoutMs: 2000 }), null);
  const took = performance.now() - started;
  assert.equal(client.child.signalCode, 'SIGKILL');
  assert.ok(took < 2000 + 1500, `close({timeoutMs: 2000}) took ${Math.round(took)} ms`);
});

test('requests wait 60 s by default, and a pending one does not keep the process alive', async () => {
  assert.equal(DEFAULT_REQUEST_TIMEOUT_MS, 60_000);
  assert.equal(new WharfClient(new PassThrough(), new PassThrough()).requestTimeoutMs, 60_000);
  assert.throws(() => new WharfClient(new PassThrough(), new PassThrough(), { requestTimeoutMs: -1 }), RangeError);
  // A client over streams nothing answers on: the process ends at once, not after the timeout.
  const module = new URL('../src/index.js', import.meta.url).href;
  const code = `import { PassThrough } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
    const { WharfClient } = await import(${JSON.stringify(module)});
    new WharfClient(new PassThrough(), new PassThrough()).ping().catch(() => {});`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', code], { timeout: 5000 });
});

test('a dialog wait with timeoutMs rejects with WharfTimeout and leaves the dialog open', { timeout: 5000 }, async (t) => {
  // A frontend that draws nothing: the dialog stays open until cancelled.
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true, onPresent: () => {} });
  const dialog = await client.presentImporter(['public.item']);
  await assert.rejects(dialog.result({ timeoutMs: 100 }), (error) => error instanceof WharfTimeout
    && error.message === `dialog ${dialog.id} has not ended within 0.1 s`);
  await assert.rejects(dialog.finalEvent({ timeoutMs: 100 }), WharfTimeout);
  assert.equal(dialog.done, false);
  assert.equal(await dialog.cancel(), true, 'the dialog was still open');
  await assert.rejects(dialog.result({ timeoutMs: 300 }), (error) => error instanceof DialogCancelled && error.reason === 'client');
  assert.equal((await dialog.finalEvent({ timeoutMs: 300 })).kind, 'cancelled');
});

test('notifications between a request and its response are routed', async (t) => {
  const folder = photos(t);
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  const order = [];
  client.on('notification', (method) => order.push(method));
  client.onPresent(async (presentation) => {
    await presentation.choose([url(join(folder, 'a.png'))]);
    order.push('choose answered');
  });
  const dialog = await client.presentImporter(['public.image'], { defaultDirectory: folder });
  await dialog.result();
  assert.ok(order.includes('dialog/completed'));
});

test('a throwing or rejecting onPresent ends the dialog with presenterFailed and its message', async (t) => {
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  const heard = [];
  client.on('error', (error) => heard.push(error.message));
  client.onPresent(() => { throw new TypeError('the file view crashed'); });
  const thrown = await client.presentImporter(['public.item']);
  await assert.rejects(thrown.result(), (error) => error instanceof DialogFailed && error.code === -32040
    && error.serverMessage.includes('TypeError: the file view crashed'));
  client.onPresent(async (presentation) => { await presentation.list(); throw new Error('no room to draw'); });
  const rejected = await client.presentImporter(['public.item']);
  await assert.rejects(rejected.result(), (error) => error instanceof DialogFailed && error.serverMessage.includes('Error: no room to draw'));
  assert.deepEqual(heard, ['the file view crashed', 'no room to draw']);
});

test('presentsDialogs without an onPresent handler ends the dialog', async (t) => {
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  const dialog = await client.presentImporter(['public.item']);
  await assert.rejects(dialog.result(), (error) => error instanceof DialogFailed && error.serverMessage.includes(NO_HANDLER_MESSAGE));
});

test('an exporter presentation has filenames, documentCount and the names for each type', async (t) => {
  const folder = scratch(t);
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  const shown = new Promise((resolve) => client.onPresent(async (presentation) => {
    resolve({
      filenames: presentation.filenames, documentCount: presentation.documentCount,
      choices: presentation.contentTypeChoices.map((choice) => [choice.contentType, choice.filenames]),
    });
    await presentation.dismiss();
  }));
  const dialog = await client.presentExporter([
    { writableContentTypes: ['public.plain-text', 'public.html'], filename: 'one', contents: '1' },
    { writableContentTypes: ['public.plain-text', 'public.html'], filename: 'two', contents: '2' },
  ], { defaultDirectory: folder });
  assert.deepEqual(await shown, {
    filenames: ['one.txt', 'two.txt'], documentCount: 2,
    choices: [['public.plain-text', ['one.txt', 'two.txt']], ['public.html', ['one.html', 'two.html']]],
  });
  await assert.rejects(dialog.result(), DialogCancelled);
});

test('prefersDesktopDialogs is sent, and the presenter is read when the server says it', async (t) => {
  const sent = [];
  const client = await WharfClient.spawn({ wharf: wharfPath(), args: ['--state-dir', ':memory:'], initialize: false });
  t.after(() => client.close());
  client.on('traffic', (direction, message) => { if (direction === 'send') sent.push(message); });
  await client.initialize({ presentsDialogs: true, prefersDesktopDialogs: true });
  assert.deepEqual(sent[0].params.capabilities, { presentsDialogs: true, prefersDesktopDialogs: true });
  assert.ok([null, 'portal', 'zenity', 'kdialog', 'frontend', 'script'].includes(client.presenter));
  client.initializeResult = { ...client.initializeResult, capabilities: { ...client.initializeResult.capabilities, presenter: 'portal' } };
  assert.equal(client.presenter, 'portal');
});

test('the package version is the server\'s', async () => {
  const { stdout } = await promisify(execFile)(wharfPath(), ['--version']);
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(manifest.version, stdout.split(' ')[1]);
});

test('an installed wharf is found without $WHARF or PATH', (t) => {
  const folder = scratch(t);
  const installed = join(folder, 'wharf');
  writeFileSync(installed, '#!/bin/sh\n');
  chmodSync(installed, 0o755);
  const saved = { WHARF: process.env.WHARF, PATH: process.env.PATH };
  t.after(() => { process.env.PATH = saved.PATH; if (saved.WHARF === undefined) delete process.env.WHARF; else process.env.WHARF = saved.WHARF; });
  delete process.env.WHARF;
  process.env.PATH = join(folder, 'empty');
  assert.equal(findWharf(undefined, { locations: ['/nonexistent/wharf', installed] }), installed);
  assert.equal(findWharf('/given/wharf'), '/given/wharf');
  assert.deepEqual([...INSTALLED_LOCATIONS], ['/usr/local/bin/wharf', '/usr/bin/wharf']);
  assert.throws(() => findWharf(undefined, { locations: ['/nonexistent/wharf'] }), /cannot find wharf/);
});

test('spawning a wharf that does not exist rejects with WharfError naming it', async (t) => {
  // What the README says: findWharf() does not check a path it is given, and the spawn's
  // ENOENT comes back as a WharfError (not the bare Node error) whose message names the path.
  const missing = join(scratch(t), 'no-such-wharf');
  await assert.rejects(WharfClient.spawn({ wharf: missing }), (error) => {
    assert.ok(error instanceof WharfError, `${error?.name}: ${error?.message}`);
    assert.match(error.message, /^cannot start /);
    assert.ok(error.message.includes(missing), error.message);
    return true;
  });
});

test('a dialog keeps a bounded history of the events the app does not read, and always its ending', async (t) => {
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true });
  let dismiss;
  const dismissed = new Promise((resolve) => { dismiss = resolve; });
  client.onPresent(async (presentation) => {
    await dismissed;
    await presentation.dismiss();
  });
  const dialog = await client.presentImporter(['public.item']);
  let heard = 0;
  dialog.on('event', (event) => { if (event.kind === 'progress') heard += 1; });
  await client.ping();  // wharf is quiet now: the dialog waits on its presenter
  // What a long export's dialog/progress would be, handed to the client's reader as if wharf had
  // written it, while the app reads none of it.
  const progress = [];
  for (let n = 0; n < 5000; n++) {
    progress.push(encode({ jsonrpc: '2.0', method: 'dialog/progress', params: { dialogId: dialog.id, bytesWritten: n, totalBytes: 5000 } }));
  }
  client.child.stdout.emit('data', Buffer.concat(progress));
  await client.ping();
  assert.equal(heard, 5000, 'listeners hear every event');
  assert.equal(dialog.events.length, EVENTS_KEPT);
  dismiss();
  await assert.rejects(dialog.result(), (error) => error instanceof DialogCancelled && error.reason === 'user');
  const events = [];
  for await (const event of dialog) events.push(event);
  // The oldest were dropped, the latest kept, and the ending always.
  assert.deepEqual(events.slice(-2).map((event) => event.kind), ['presentationChanged', 'cancelled']);
  assert.deepEqual(events.slice(0, -2).map((event) => event.params.bytesWritten),
    Array.from({ length: EVENTS_KEPT - 1 }, (_, i) => 5000 - EVENTS_KEPT + 1 + i));
});

test('an error listener that throws is reported and ignored: the failed handler still ends its dialog, and withAccess still rejects with the body\'s error', async (t) => {
  // `error` listeners were called with emit(): one that threw broke out of the failed handler's
  // clean-up (an unhandled rejection, and the dialog stayed open for ever), or out of
  // withAccess's, whose caller then saw the listener's error instead of its own.
  const warnings = [];
  const heard = (warning) => { if (warning.name === 'WharfWarning') warnings.push(warning.message); };
  process.on('warning', heard);
  t.after(() => process.off('warning', heard));
  const folder = photos(t);
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true,
    onPresent: (presentation) => presentation.choose([join(folder, 'notes.txt')]) });
  const [picked] = await (await client.presentImporter(['public.plain-text'])).result();
  const errors = [];
  client.on('error', () => { throw new Error('an error listener failed'); });
  client.on('error', (error) => errors.push(error.message));
  client.onPresent(() => { throw new Error('the file view crashed'); });
  const dialog = await client.presentImporter(['public.item']);
  await assert.rejects(dialog.result({ timeoutMs: 5000 }), (error) => error instanceof DialogFailed && error.code === -32040
    && error.serverMessage.includes('Error: the file view crashed'));
  const leases = [];
  client.on('traffic', (direction, message) => { if (direction === 'receive' && message.result?.accessId) leases.push(message.result.accessId); });
  const crash = new Error('the editor crashed');
  await assert.rejects(client.withAccess(picked, async () => {
    await client.releaseAccess(leases[0]);  // released behind its back: the scoped release fails
    throw crash;
  }), (error) => error === crash);
  assert.equal(errors.length, 2, 'the listener after the one that threw heard both failures');
  assert.equal(errors[0], 'the file view crashed');
  assert.match(errors[1], /accessNotFound/);
  await new Promise((resolve) => setImmediate(resolve));  // warnings are emitted on the next tick
  assert.equal(warnings.filter((message) => message.includes("'error' listener threw")).length, 2, String(warnings));
});

test('an option that is not one throws TypeError naming it, and nothing is presented', async (t) => {
  // Options outside the list were dropped without a word: `defaultDir` (for defaultDirectory)
  // or `multipleSelection` (for multiple) presented a dialog that silently lacked them.
  const client = await spawn(t, { args: ['--state-dir', ':memory:'], presentsDialogs: true, onPresent: () => {} });
  const sent = [];
  client.on('traffic', (direction, message) => { if (direction === 'send') sent.push(message.method); });
  await assert.rejects(async () => client.presentImporter(['public.item'], { defaultDir: '/tmp', title: 'Open' }),
    (error) => error instanceof TypeError && /defaultDir/.test(error.message) && /defaultDirectory/.test(error.message));
  await assert.rejects(async () => client.presentExporter([{ writableContentTypes: ['public.plain-text'], contents: 'x' }], { multiple: true }),
    (error) => error instanceof TypeError && /multiple/.test(error.message));
  assert.deepEqual(sent, []);
  // Every option the README lists is taken.
  const dialog = await client.presentImporter(['public.item'], {
    title: 't', message: 'm', confirmationLabel: 'c', defaultDirectory: '/tmp', browserOptions: ['includeHiddenFiles'],
    urlEnabled: { all: [] }, importsUnresolvedAliases: true, customizationId: 'id', timeoutMs: 60_000, presentationId: 'p',
  });
  await dialog.cancel();
});
