// Shared by the tests: where the built wharf is, and scratch folders.
import { accessSync, constants, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

export function wharfPath() {
  const path = process.env.WHARF ?? join(repositoryRoot, '.build', 'debug', 'wharf');
  accessSync(path, constants.X_OK);
  return path;
}

/** A fresh folder (symbolic links resolved) removed when `t` ends. */
export function scratch(t) {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'wharf-node-')));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
