#!/usr/bin/env node
// `npm start`: the desktop app. Without Electron's binary (its download skipped, blocked by the
// install-script policy, or impossible offline), one clear message says what is missing, how to
// fetch it, and that `npx mnemo serve` runs the same app in a browser meanwhile.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

if (electronBinary() === null) {
  process.stderr.write(
    [
      "mnemo: the desktop app cannot start: Electron's binary is not installed",
      '  (its download was skipped with ELECTRON_SKIP_BINARY_DOWNLOAD, blocked, or not possible offline).',
      '  Fetch it with:   node node_modules/electron/install.js',
      '  Meanwhile the same app runs in your browser:   npx mnemo serve',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

const child = spawn(process.execPath, [require.resolve('electron-vite/bin/electron-vite.js'), 'preview', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
