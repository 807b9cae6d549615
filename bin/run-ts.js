#!/usr/bin/env node
// Runs a TypeScript file (benchmarks, scripts) through tsx: `node bin/run-ts.js bench/capture.ts`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [script, ...rest] = process.argv.slice(2);
if (!script) {
  console.error('usage: node bin/run-ts.js <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], resolve(script), ...rest];
register();
await import(pathToFileURL(resolve(script)).href);
