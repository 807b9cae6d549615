/**
 * Loads nut-js, only after the display check has passed (see display-check.ts), and tunes its
 * delays: nut-js waits 100-300 ms between events by default, far too slow for an agent.
 */
import { checkDisplay } from './display-check';

import type * as NutJs from '@nut-tree-fork/nut-js';

export type NutModule = typeof NutJs;

export type NutLoad = { ok: true; nut: NutModule } | { ok: false; message: string };

export async function loadNut(env: NodeJS.ProcessEnv = process.env): Promise<NutLoad> {
  const display = await checkDisplay(env);
  if (!display.ok) return display;
  const imported = (await import('@nut-tree-fork/nut-js')) as NutModule & { default?: NutModule };
  // Under ESM the CommonJS exports may arrive on `default` only.
  const nut = imported.default && 'mouse' in imported.default ? imported.default : imported;
  // Our own pacing (input.ts) decides the gaps between events.
  nut.mouse.config.autoDelayMs = 0;
  nut.mouse.config.mouseSpeed = 5000;
  nut.keyboard.config.autoDelayMs = 0;
  return { ok: true, nut };
}
