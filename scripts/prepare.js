#!/usr/bin/env node
/**
 * package.json's `prepare`: run by `npm install` and `npm ci` in a clone, and by `npm pack`.
 * Builds what the package ships: the CLI (dist/cli/, scripts/build-cli.js) and the window that
 * `mnemo serve` sends to a browser (out/renderer/: built here because electron-vite is a
 * devDependency, absent where the package is installed). Then, in a clone, fetches Electron's
 * binary for the desktop window (scripts/fetch-electron.js; a failed download is one line, not a
 * failed install).
 *
 * When packing, the Electron bundles (out/main/, out/preload/) are removed: the package does not
 * carry them, but npm packs package.json's `main` (out/main/index.js, which Electron needs) whatever
 * `files` says. `npm start` and `npm run package` build them again.
 *
 * It speaks on stderr only: npm passes a lifecycle script's stdout through to its own, and
 * `npm pack --json` must print nothing but its JSON there.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCli, ROOT } from './build-cli.js';
import { fetchElectron } from './fetch-electron.js';

/** The renderer alone, as electron-vite builds it (its config's `renderer` part). */
async function buildRenderer() {
  const [{ resolveConfig }, { build }] = await Promise.all([import('electron-vite'), import('vite')]);
  process.env.NODE_ENV_ELECTRON_VITE = 'production';
  const resolved = await resolveConfig({ root: ROOT, configFile: join(ROOT, 'electron.vite.config.ts'), logLevel: 'warn' }, 'build', 'production');
  if (!resolved.config.renderer) throw new Error('electron.vite.config.ts has no renderer');
  await build(resolved.config.renderer);
}

const cli = await buildCli();
if (!cli.ok) {
  process.stderr.write(`building the mnemo command failed:\n${cli.message}\n`);
  process.exit(1);
}
await buildRenderer();
const packing = process.env.npm_command === 'pack' || process.env.npm_command === 'publish';
if (packing) for (const bundle of ['main', 'preload']) await rm(join(ROOT, 'out', bundle), { recursive: true, force: true });
process.stderr.write(`built the mnemo command (dist/cli/) and the window for mnemo serve (out/renderer/)${packing ? '; the Electron bundles (out/main/, out/preload/) are not packed' : ''}\n`);
if (!packing) fetchElectron();
