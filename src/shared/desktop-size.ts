/**
 * A private desktop's size as people write it (`1280x800`), parsed and formatted without a schema
 * library: the CLI checks `--desktop-size` at every start, and the schemas (desktop.ts) build on it.
 */
import type { Size } from './frame';

export const DEFAULT_DESKTOP_SIZE: Size = { width: 1280, height: 800 };

/** Xvfb takes far more, but a screen beyond 8K is a typo; one under 320x200 shows no app. */
const MIN_SIDE = { width: 320, height: 200 } as const;
const MAX_SIDE = 8192;

export type SizeParse = { ok: true; size: Size } | { ok: false; message: string };

/** `WxH` (e.g. `1920x1080`) → a size, or why not. */
export function parseDesktopSize(text: string): SizeParse {
  const match = /^\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*$/.exec(text);
  if (!match) return { ok: false, message: `the desktop size "${text}" is not WIDTHxHEIGHT, e.g. 1280x800` };
  const size = { width: Number(match[1]), height: Number(match[2]) };
  if (size.width < MIN_SIDE.width || size.height < MIN_SIDE.height || size.width > MAX_SIDE || size.height > MAX_SIDE) {
    return { ok: false, message: `the desktop size ${size.width}x${size.height} is out of range (${MIN_SIDE.width}x${MIN_SIDE.height} to ${MAX_SIDE}x${MAX_SIDE})` };
  }
  return { ok: true, size };
}

export function formatDesktopSize(size: Size): string {
  return `${size.width}x${size.height}`;
}
