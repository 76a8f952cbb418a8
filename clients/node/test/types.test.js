// The declarations agree with protocol/wharf.schema.json: interfaces that name a schema object
// have the same members, optional exactly where the schema does not require them; every request
// a client may send has a method that sends it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ERROR_NAMES } from '../src/index.js';
import { repositoryRoot } from '../test-support/support.js';

const schema = JSON.parse(readFileSync(join(repositoryRoot, 'protocol', 'wharf.schema.json'), 'utf8'));
const declarations = readFileSync(fileURLToPath(new URL('../index.d.ts', import.meta.url)), 'utf8');
const source = readFileSync(fileURLToPath(new URL('../src/client.js', import.meta.url)), 'utf8');

function resolve(pointer) {
  let node = schema;
  for (const token of pointer.replace(/^#\//, '').split('/')) node = node[token.replaceAll('~1', '/').replaceAll('~0', '~')];
  return node.$ref ? resolve(node.$ref) : node;
}

/** Interfaces with `@schema` in their doc comment: name, pointer, members (name → optional). */
function mirroredInterfaces() {
  const found = [];
  const pattern = /@schema (\S+) \*\/\nexport interface (\w+) \{\n([\s\S]*?)\n\}/g;
  for (const [, pointer, name, body] of declarations.matchAll(pattern)) {
    const members = new Map();
    for (const line of body.split('\n')) {
      const member = line.match(/^ {2}(\w+)(\??):/);
      if (member) members.set(member[1], member[2] === '?');
    }
    found.push({ name, pointer, members });
  }
  return found;
}

test('the declarations mirror the schema objects they name', () => {
  const interfaces = mirroredInterfaces();
  assert.ok(interfaces.length >= 12, `only ${interfaces.length} interfaces name a schema object`);
  for (const { name, pointer, members } of interfaces) {
    const object = resolve(pointer);
    const required = new Set(object.required ?? []);
    assert.deepEqual([...members.keys()].sort(), Object.keys(object.properties).sort(), `${name} and ${pointer}`);
    for (const [member, optional] of members) {
      assert.equal(optional, !required.has(member), `${name}.${member} optional where the schema ${required.has(member) ? 'requires it' : 'does not'}`);
    }
  }
});

test('every request a client sends has a method that sends it', () => {
  for (const [method, entry] of Object.entries(schema.requests)) {
    if (entry.direction === 'serverToClient') continue;
    assert.ok(source.includes(`'${method}'`), `no method sends ${method}`);
  }
  assert.ok(source.includes("'exporter/snapshot'"), 'exporter/snapshot is answered');
});

test('every error code has its name', () => {
  const table = Object.fromEntries(schema.errors.map((entry) => [String(entry.code), entry.name]));
  assert.deepEqual({ ...ERROR_NAMES }, table);
});

test('the typed method maps name every method of the schema', () => {
  const body = (name) => declarations.match(new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`))[1];
  const keys = (name) => new Set([...body(name).matchAll(/^ {2}'?([\w$/]+)'?:/gm)].map((match) => match[1]));
  const expected = (table, direction) => Object.entries(schema[table]).filter(([, entry]) => entry.direction === direction).map(([method]) => method).sort();
  assert.deepEqual([...keys('RequestMap')].sort(), expected('requests', 'clientToServer'));
  assert.deepEqual([...keys('ServerRequestMap')].sort(), expected('requests', 'serverToClient'));
  assert.deepEqual([...keys('ClientNotificationMap')].sort(), expected('notifications', 'clientToServer'));
  assert.deepEqual([...keys('ServerNotificationMap')].sort(), expected('notifications', 'serverToClient'));
});
