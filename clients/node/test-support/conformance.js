// Replays a transcript of protocol/conformance/ against a real wharf, exactly as
// protocol/conformance/README.md defines it (the Swift and Python runners implement the same
// rules). It speaks raw protocol through the package's framing module.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { FrameDecoder, encode, encodeBody } from '../src/framing.js';

export const MESSAGE_TIMEOUT_MS = 10_000;
const CAPTURE = /^\$[A-Za-z_][A-Za-z0-9_]*$/;
const MISSING = Symbol('missing');

export class TranscriptFailure extends Error {}

export function substitutePaths(value, fixtures) {
  if (typeof value === 'string') return value.replaceAll('$fixturesURL', `file://${fixtures}`).replaceAll('$fixtures', fixtures);
  if (Array.isArray(value)) return value.map((item) => substitutePaths(item, fixtures));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitutePaths(v, fixtures)]));
  return value;
}

function substituteCaptures(value, captures) {
  if (typeof value === 'string' && CAPTURE.test(value)) {
    const name = value.slice(1);
    if (!(name in captures)) throw new TranscriptFailure(`the transcript uses ${value} before binding it`);
    return captures[name];
  }
  if (Array.isArray(value)) return value.map((item) => substituteCaptures(item, captures));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteCaptures(v, captures)]));
  return value;
}

function equal(a, b) {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const numeric = (x) => typeof x === 'bigint' || (typeof x === 'number' && Number.isInteger(x));
    return numeric(a) && numeric(b) && BigInt(a) === BigInt(b);
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && equal(a[k], b[k]));
  }
  return a === b;
}

function hasType(value, name) {
  switch (name) {
    case 'null': return value === null;
    case 'boolean': return typeof value === 'boolean';
    case 'string': return typeof value === 'string';
    case 'array': return Array.isArray(value);
    case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'integer': return typeof value === 'bigint' || Number.isInteger(value);
    case 'number': return typeof value === 'number' || typeof value === 'bigint';
    default: return false;
  }
}

/** Whether `value` matches `pattern`; new captures are bound only when it does. */
export function matches(value, pattern, captures) {
  const trial = { ...captures };
  if (!match(value, pattern, trial)) return false;
  Object.assign(captures, trial);
  return true;
}

function match(value, pattern, captures) {
  if (pattern === '*') return value !== MISSING;
  if (typeof pattern === 'string' && CAPTURE.test(pattern)) {
    if (value === MISSING) return false;
    const name = pattern.slice(1);
    if (name in captures) return equal(captures[name], value);
    captures[name] = value;
    return true;
  }
  if (Array.isArray(pattern)) {
    return Array.isArray(value) && value.length === pattern.length && pattern.every((p, i) => match(value[i], p, captures));
  }
  if (pattern && typeof pattern === 'object' && typeof pattern !== 'bigint') {
    const keys = Object.keys(pattern);
    if (keys.length === 1 && keys[0].startsWith('$')) return value !== MISSING && operator(keys[0], pattern[keys[0]], value, captures);
    if (value === null || typeof value !== 'object' || Array.isArray(value) || value === MISSING) return false;
    for (const key of keys) {
      const member = pattern[key];
      if (member && typeof member === 'object' && Object.keys(member).length === 1 && member.$absent === true) {
        if (key in value) return false;
        continue;
      }
      if (!match(key in value ? value[key] : MISSING, member, captures)) return false;
    }
    return true;
  }
  return value !== MISSING && equal(value, pattern);
}

function operator(name, argument, value, captures) {
  switch (name) {
    case '$type': return hasType(value, argument);
    case '$contains': return typeof value === 'string' && value.includes(argument);
    case '$unordered': return Array.isArray(value) && value.length === argument.length && assign(value, argument, captures, false);
    default: return false;
  }
}

/** One to one; with `keepMethodOrder` the patterns naming a method match in the order given. */
export function assign(values, patterns, captures, keepMethodOrder) {
  if (values.length !== patterns.length) return false;
  const used = values.map(() => false);
  const step = (index, lastOrdered, bound) => {
    if (index === patterns.length) return bound;
    const pattern = patterns[index];
    const ordered = keepMethodOrder && pattern && typeof pattern === 'object' && 'method' in pattern;
    for (let candidate = ordered ? lastOrdered + 1 : 0; candidate < values.length; candidate++) {
      if (used[candidate]) continue;
      const trial = { ...bound };
      if (!match(values[candidate], pattern, trial)) continue;
      used[candidate] = true;
      const found = step(index + 1, ordered ? candidate : lastOrdered, trial);
      if (found) return found;
      used[candidate] = false;
    }
    return null;
  };
  const result = step(0, -1, { ...captures });
  if (!result) return false;
  Object.assign(captures, result);
  return true;
}

/**
 * JSON.parse that keeps integers beyond 2^53 exact (as BigInt), since transcripts compare ids
 * such as 9007199254740993. Node 18 has no JSON.parse source access, so big integer literals
 * are quoted with a marker first (outside strings) and turned into BigInt afterwards.
 */
export function parseJSON(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') { inString = true; out += c; continue; }
    if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i;
      while (j < text.length && /[-+0-9.eE]/.test(text[j])) j++;
      const literal = text.slice(i, j);
      out += /^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal)) ? `"\\u0000big:${literal}"` : literal;
      i = j - 1;
      continue;
    }
    out += c;
  }
  return JSON.parse(out, (key, value) => (typeof value === 'string' && value.startsWith('\u0000big:') ? BigInt(value.slice(5)) : value));
}

/** JSON.stringify that writes BigInts as exact integer literals. */
export function stringifyJSON(value) {
  const marked = JSON.stringify(value, (key, item) => (typeof item === 'bigint' ? `\u0000big:${item}` : item));
  return marked.replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

function makeFixtures(folder, fixtures) {
  for (const [relative, raw] of Object.entries(fixtures ?? {})) {
    if (relative.startsWith('/') || relative.split('/').includes('..')) throw new TranscriptFailure(`fixture path ${relative} must stay inside the fixtures folder`);
    const path = join(folder, relative);
    mkdirSync(dirname(path), { recursive: true });
    const content = substitutePaths(raw, folder);
    if (typeof content === 'string') writeFileSync(path, content);
    else if ('json' in content) writeFileSync(path, JSON.stringify(content.json));
    else if ('base64' in content) writeFileSync(path, Buffer.from(content.base64, 'base64'));
    else if ('size' in content) { writeFileSync(path, ''); truncateSync(path, content.size); }
    else if (content.directory === true) mkdirSync(path, { recursive: true });
    else if ('symlink' in content) symlinkSync(content.symlink, path);
    else throw new TranscriptFailure(`fixture ${relative}: unknown content ${JSON.stringify(content)}`);
  }
}

/** Messages from the server as an awaitable queue. */
class Inbox {
  constructor() { this.messages = []; this.waiters = []; this.ended = false; }
  push(message) { this.messages.push(message); this.#wake(); }
  end() { this.ended = true; this.#wake(); }
  #wake() { for (const wake of this.waiters.splice(0)) wake(); }
  async next(timeoutMs = MESSAGE_TIMEOUT_MS) {
    if (this.messages.length) return this.messages.shift();
    if (this.ended) return MISSING;
    let timer;
    const arrived = await new Promise((resolve) => {
      this.waiters.push(() => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    clearTimeout(timer);
    if (!arrived) return MISSING;
    return this.next(timeoutMs);
  }
}

/** Runs one transcript; throws TranscriptFailure naming the step that failed. */
export async function run(wharf, transcript) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'wharf-conformance-')));
  const fixtures = join(root, 'fixtures');
  mkdirSync(fixtures);
  mkdirSync(join(root, 'state'));
  let child;
  try {
    makeFixtures(fixtures, transcript.fixtures);
    const framing = transcript.server?.framing ?? 'lsp';
    const args = (transcript.server?.arguments ?? []).map((a) => substitutePaths(a, fixtures));
    child = spawn(wharf, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, XDG_STATE_HOME: join(root, 'state') } });
    child.stdin.on('error', () => {});
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? 128)));
    const inbox = new Inbox();
    const decoder = new FrameDecoder(framing);
    child.stdout.on('data', (chunk) => { for (const body of decoder.push(chunk)) inbox.push(parseJSON(body.toString('utf8'))); });
    child.stdout.on('end', () => inbox.end());
    const state = { captures: {}, pending: [], markers: 0 };
    const next = async () => (state.pending.length ? state.pending.shift() : inbox.next());
    const write = (data) => child.stdin.write(data);

    for (const [index, rawStep] of transcript.steps.entries()) {
      const step = substitutePaths(rawStep, fixtures);
      try {
        if ('send' in step) write(encodeBody(stringifyJSON(substituteCaptures(step.send, state.captures)), framing));
        else if ('sendBody' in step) write(encodeBody(step.sendBody, framing));
        else if ('sendRaw' in step) write(Buffer.from(step.sendRaw, 'utf8'));
        else if ('expect' in step) {
          const message = await next();
          if (message === MISSING) throw new TranscriptFailure(`expected ${stringifyJSON(step.expect)}, but nothing came`);
          if (!matches(message, step.expect, state.captures)) throw new TranscriptFailure(`expected ${stringifyJSON(step.expect)}\n  got ${stringifyJSON(message)}`);
        } else if ('expectAll' in step) {
          const messages = [];
          for (let i = 0; i < step.expectAll.length; i++) {
            const message = await next();
            if (message === MISSING) throw new TranscriptFailure(`expected ${step.expectAll.length} messages, got only ${stringifyJSON(messages)}`);
            messages.push(message);
          }
          if (!assign(messages, step.expectAll, state.captures, true)) {
            throw new TranscriptFailure(`expected ${stringifyJSON(step.expectAll)} (responses anywhere, the rest in order)\n  got ${stringifyJSON(messages)}`);
          }
        } else if ('expectSome' in step) {
          let count = 0;
          for (;;) {
            const message = await next();
            if (message === MISSING) break;
            if (!matches(message, step.expectSome, state.captures)) { state.pending.unshift(message); break; }
            count++;
          }
          if (count === 0) throw new TranscriptFailure(`expected one or more messages matching ${stringifyJSON(step.expectSome)}`);
        } else if ('expectNone' in step) {
          const marker = `conformance-marker-${++state.markers}`;
          write(encode({ jsonrpc: '2.0', id: marker, method: 'ping' }, framing));
          for (;;) {
            const message = await inbox.next();
            if (message === MISSING) throw new TranscriptFailure(`no answer to the marker ping ${marker}`);
            if (message && message.id === marker && !('method' in message)) break;
            state.pending.push(message);
          }
          for (const message of state.pending) {
            if (step.expectNone === null || matches(message, step.expectNone, { ...state.captures })) {
              throw new TranscriptFailure(`expected no message${step.expectNone === null ? '' : ` matching ${stringifyJSON(step.expectNone)}`}, got ${stringifyJSON(message)}`);
            }
          }
        } else if ('closeInput' in step) child.stdin.end();
        else if ('signal' in step) child.kill(step.signal === 'INT' ? 'SIGINT' : 'SIGTERM');
        else if ('exit' in step) {
          let timer;
          const status = await Promise.race([exited, new Promise((resolve) => { timer = setTimeout(() => resolve(MISSING), MESSAGE_TIMEOUT_MS); })]);
          clearTimeout(timer);
          if (status === MISSING) throw new TranscriptFailure('wharf did not exit');
          if (status !== step.exit) throw new TranscriptFailure(`wharf exited with status ${status}, expected ${step.exit}; stderr: ${stderr}`);
          for (;;) {
            const message = await inbox.next();
            if (message === MISSING) break;
            state.pending.push(message);
          }
          if (!inbox.ended) throw new TranscriptFailure("wharf's output stayed open after it exited");
          if (state.pending.length) throw new TranscriptFailure(`wharf sent messages no step expected: ${state.pending.map(stringifyJSON).join('\n  ')}`);
        } else throw new TranscriptFailure(`unknown step ${stringifyJSON(step)}`);
      } catch (error) {
        if (!(error instanceof TranscriptFailure)) throw error;
        const comment = rawStep.comment ? ` (${rawStep.comment})` : '';
        throw new TranscriptFailure(`step ${index + 1}${comment}: ${error.message}`);
      }
    }
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(root, { recursive: true, force: true });
  }
}
