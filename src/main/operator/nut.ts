/**
 * The native mouse, keyboard and screen: libnut (the native core of nut.js, from the nut-tree
 * fork), called directly. nut.js itself brings jimp and some 300 modules that Mnemo never uses,
 * about a fifth of a second of CPU for every operator host that starts; libnut alone loads in a
 * few milliseconds. The clipboard is clipboardy's, as nut.js's was.
 *
 * libnut opens the display at its first call: hold the display first (openNut).
 */
import { createRequire } from 'node:module';
import type * as Libnut from '@nut-tree-fork/libnut-linux';
import type clipboardyModule from 'clipboardy';
import { holdDisplay } from './display-check';
import type { MouseButton } from '../../shared/actions';
import type { Key } from './native-keys';
import type { Rect } from '../../shared/frame';

/** A grab as libnut returns it: BGRA rows of byteWidth bytes, alpha 0. */
export interface NutGrab {
  width: number;
  height: number;
  data: Buffer;
  byteWidth: number;
}

/** What Mnemo asks of the native layer (shaped after nut.js's API, which it replaces). */
export interface NutModule {
  mouse: {
    getPosition(): Promise<{ x: number; y: number }>;
    setPosition(point: { x: number; y: number }): Promise<void>;
    pressButton(button: MouseButton): Promise<void>;
    releaseButton(button: MouseButton): Promise<void>;
    scrollUp(amount: number): Promise<void>;
    scrollDown(amount: number): Promise<void>;
    scrollLeft(amount: number): Promise<void>;
    scrollRight(amount: number): Promise<void>;
  };
  keyboard: {
    pressKey(key: Key): Promise<void>;
    releaseKey(key: Key): Promise<void>;
  };
  clipboard: {
    /** Rejects when nothing owns the clipboard. */
    getContent(): Promise<string>;
    setContent(text: string): Promise<void>;
  };
  screen: {
    width(): Promise<number>;
    height(): Promise<number>;
    /** The whole screen, or a region of it. */
    grab(region?: Rect): Promise<NutGrab>;
  };
  activeWindowTitle(): Promise<string>;
}

export type NutLoad = { ok: true; nut: NutModule } | { ok: false; message: string };

/** libnut's package for this platform (each carries its own prebuilt binary). */
function requireLibnut(platform: NodeJS.Platform): typeof Libnut {
  const name = platform === 'win32' ? '@nut-tree-fork/libnut-win32' : platform === 'darwin' ? '@nut-tree-fork/libnut-darwin' : '@nut-tree-fork/libnut-linux';
  return createRequire(import.meta.url)(name) as typeof Libnut;
}

/** Runs a libnut call as a promise: its throws become rejections, as nut.js made them. */
const call = <T>(native: () => T): Promise<T> => new Promise<T>((resolve) => resolve(native()));

/** The native layer over libnut. Loads libnut; its first call opens the display. */
function importNut(platform: NodeJS.Platform = process.platform): NutModule {
  const libnut = requireLibnut(platform);
  // libnut waits 10 ms after each mouse event by default; our own pacing (input.ts) decides the gaps.
  libnut.setMouseDelay(0);
  let clipboardy: Promise<typeof clipboardyModule> | undefined;
  // clipboardy starts a helper (xsel on X11); loaded only when the clipboard is used.
  const loadClipboardy = () => (clipboardy ??= import('clipboardy').then((loaded) => loaded.default));
  return {
    mouse: {
      getPosition: () => call(() => libnut.getMousePos()),
      setPosition: ({ x, y }) => call(() => libnut.moveMouse(x, y)),
      pressButton: (button) => call(() => libnut.mouseToggle('down', button)),
      releaseButton: (button) => call(() => libnut.mouseToggle('up', button)),
      scrollUp: (amount) => call(() => libnut.scrollMouse(0, amount)),
      scrollDown: (amount) => call(() => libnut.scrollMouse(0, -amount)),
      scrollLeft: (amount) => call(() => libnut.scrollMouse(-amount, 0)),
      scrollRight: (amount) => call(() => libnut.scrollMouse(amount, 0)),
    },
    keyboard: {
      pressKey: (key) => call(() => libnut.keyToggle(key, 'down')),
      releaseKey: (key) => call(() => libnut.keyToggle(key, 'up')),
    },
    clipboard: {
      getContent: async () => (await loadClipboardy()).read(),
      setContent: async (text) => (await loadClipboardy()).write(text),
    },
    screen: {
      width: () => call(() => libnut.getScreenSize().width),
      height: () => call(() => libnut.getScreenSize().height),
      grab: (region) =>
        call(() => {
          const bitmap = region ? libnut.screen.capture(region.x, region.y, region.width, region.height) : libnut.screen.capture();
          return { width: bitmap.width, height: bitmap.height, data: bitmap.image as Buffer, byteWidth: bitmap.byteWidth };
        }),
    },
    activeWindowTitle: () => call(() => libnut.getWindowTitle(libnut.getActiveWindow())),
  };
}

/**
 * Makes libnut open its display connection now, while the caller holds the display: libnut keeps
 * that connection for the life of the process, so the server has a client from then on.
 */
export async function openNut(): Promise<NutModule> {
  const nut = importNut();
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
