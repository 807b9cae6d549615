/**
 * Tests run the `mnemo` command as a user does, from its build (bin/mnemo.js runs dist/cli/), and
 * `mnemo serve` sends the built window (out/renderer/): both are made fresh once, before any test,
 * rather than by several tests' first `mnemo` at the same time.
 */
import { ensureCliBuilt } from '../scripts/build-cli.js';
import { ensureRendererBuilt } from '../src/main/server/renderer-files';

type Built = { ok: true } | { ok: false; message: string };
// Every project of the run calls this setup; one build serves them all.
const shared = globalThis as { mnemoBuilds?: Promise<Built[]> };

export async function setup(): Promise<void> {
  shared.mnemoBuilds ??= Promise.all([ensureCliBuilt(), ensureRendererBuilt(undefined, (line) => process.stderr.write(`mnemo: ${line}\n`))]);
  for (const built of await shared.mnemoBuilds) if (!built.ok) throw new Error(`the build failed:\n${built.message}`);
}
