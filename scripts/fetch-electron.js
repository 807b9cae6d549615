#!/usr/bin/env node
/**
 * Fetches Electron's binary for the desktop window, at `npm install` / `npm ci` of a clone
 * (scripts/prepare.js). Electron's own install script is not allowed to run (package.json's
 * allowScripts): where the download cannot be made (offline, a proxy, a firewall) it fails the
 * whole install, and with it the CLI and `mnemo serve`, which need no binary. Here a failed
 * download is one line and the install goes on; `npm start` then says what is missing.
 *
 * Does nothing when ELECTRON_SKIP_BINARY_DOWNLOAD is set, when the package is being packed or
 * published (the package does not carry Electron), or when Electron is not installed at all (a
 * global install of the package, `npm install --omit=dev`).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The reason in one line: the first line of the error electron's script printed. */
function firstLine(text) {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '' && !candidate.trim().startsWith('at '));
  return (line ?? 'no reason given').trim();
}

export function fetchElectron() {
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return;
  if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') return;
  let installer;
  try {
    installer = createRequire(join(root, 'package.json')).resolve('electron/install.js');
  } catch {
    return;
  }
  const fetched = spawnSync(process.execPath, [installer], { cwd: dirname(installer), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (fetched.status === 0) return;
  const reason = fetched.error ? fetched.error.message : firstLine(`${fetched.stderr}\n${fetched.stdout}`);
  process.stderr.write(
    `mnemo: Electron's binary could not be downloaded (${reason}); the desktop window needs it, the CLI and \`npx mnemo serve\` do not. Fetch it later with: node node_modules/electron/install.js\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) fetchElectron();
