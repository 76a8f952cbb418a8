// The README's example runs unchanged and prints what the README says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { scratch, wharfPath } from '../test-support/support.js';

const packageFolder = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(packageFolder, 'README.md'), 'utf8');

test('the README example prints what the README shows', async (t) => {
  const example = readme.match(/```js\n([\s\S]*?)```/)[1];
  const shown = readme.match(/it prints:\n\n```\n([\s\S]*?)```/)[1];
  // Installed as `wharf-client` the way `npm install ./clients/node` would: a node_modules link.
  const folder = scratch(t);
  mkdirSync(join(folder, 'node_modules'));
  symlinkSync(packageFolder, join(folder, 'node_modules', 'wharf-client'));
  const file = join(folder, 'example.mjs');
  writeFileSync(file, example);
  const { stdout } = await promisify(execFile)(process.execPath, [file], {
    cwd: packageFolder,
    env: { ...process.env, WHARF: wharfPath(), XDG_STATE_HOME: folder },
  });
  assert.equal(stdout, shown);
});

test('the README documents every spawn option', async () => {
  const { WharfClient } = await import('../src/index.js');
  const section = readme.slice(readme.indexOf('## Spawn options'), readme.indexOf('## When things go wrong'));
  // The options spawn destructures, and those its declaration (SpawnOptions) names.
  const taken = WharfClient.spawn.toString().match(/spawn\(\{([^}]*)\}/)[1].split(',').map((option) => option.split('=')[0].trim());
  const declarations = readFileSync(join(packageFolder, 'index.d.ts'), 'utf8');
  const declared = [...declarations.match(/interface SpawnOptions \{([\s\S]*?)\n\}/)[1].matchAll(/^ {2}(\w+)\?:/gm)].map((match) => match[1]);
  assert.deepEqual([...taken].sort(), [...declared].sort());
  for (const option of taken) assert.ok(section.includes(`| \`${option}\` |`), option);
});
