/**
 * Loads nut-js, only once the display has been opened and is held (see display-check.ts), and
 * tunes its delays: nut-js waits 100-300 ms between events by default, far too slow for an agent.
 */
import { holdDisplay } from './display-check';

import type * as NutJs from '@nut-tree-fork/nut-js';

export type NutModule = typeof NutJs;

export type NutLoad = { ok: true; nut: NutModule } | { ok: false; message: string };

/** Imports and tunes nut-js. Its first call opens the display: hold it first (openNut). */
export async function importNut(): Promise<NutModule> {
  const imported = (await import('@nut-tree-fork/nut-js')) as NutModule & { default?: NutModule };
  // Under ESM the CommonJS exports may arrive on `default` only.
  const nut = imported.default && 'mouse' in imported.default ? imported.default : imported;
  // Our own pacing (input.ts) decides the gaps between events.
  nut.mouse.config.autoDelayMs = 0;
  nut.mouse.config.mouseSpeed = 5000;
  nut.keyboard.config.autoDelayMs = 0;
  return nut;
}

/**
 * Makes libnut open its display connection now, while the caller holds the display: libnut keeps
 * that connection for the life of the process, so the server has a client from then on.
 */
export async function openNut(): Promise<NutModule> {
  const nut = await importNut();
  await nut.screen.width();
  return nut;
}

export async function loadNut(env: NodeJS.ProcessEnv = process.env): Promise<NutLoad> {
  const hold = await holdDisplay(env);
  if (!hold.ok) return hold;
  try {
    return { ok: true, nut: await openNut() };
  } finally {
    hold.release();
  }
}
