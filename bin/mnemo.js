#!/usr/bin/env node
// The `mnemo` command: the built JavaScript in dist/cli/ (made by `npm install`, see
// scripts/build-cli.js). In a clone, a build older than its sources is made again first (about a
// second), so `npx mnemo` always runs what the sources say; an installed package has no sources
// and runs its build as shipped.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/main/cli/main.ts', import.meta.url))) {
  const { ensureCliBuilt } = await import('../scripts/build-cli.js');
  const built = await ensureCliBuilt();
  if (!built.ok) {
    process.stderr.write(`mnemo: the sources do not build:\n${built.message}\n`);
    process.exit(1);
  }
}
await import('../dist/cli/mnemo.js');
