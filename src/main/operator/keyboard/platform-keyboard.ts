/** The keyboard for this platform: layout-aware on X11, US positions elsewhere (us-keyboard.ts). */
import type { NutModule } from '../nut';
import type { Keyboard } from './keyboard';
import { UsKeyboard } from './us-keyboard';
import { X11Keyboard } from './x11-keyboard';

export function platformKeyboard(nut: NutModule, keyDelayMs: number, platform: NodeJS.Platform = process.platform): Keyboard {
  return platform === 'linux' ? new X11Keyboard({ keyDelayMs }) : new UsKeyboard(nut, keyDelayMs, platform);
}
