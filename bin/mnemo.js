#!/usr/bin/env node
// The `mnemo` command. Runs the TypeScript sources through tsx, so a clone needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main/cli/main.ts');
