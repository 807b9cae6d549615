/** The paster for this platform: Mnemo's own selection owner on X11, clipboardy's elsewhere. */
import type { NutModule } from '../nut';
import { NutClipboardPaster, type NutPasterOptions, type Paster } from './paster';
import { X11Paster } from './x11-paster';

export interface PlatformPasterOptions extends NutPasterOptions {
  /** X11: how long the application gets to fetch the text after the paste keys. */
  pasteFetchTimeoutMs: number;
}

export function platformPaster(nut: NutModule, options: PlatformPasterOptions, platform: NodeJS.Platform = process.platform): Paster {
  const viaNut = new NutClipboardPaster(nut, options);
  return platform === 'linux' ? new X11Paster({ fetchTimeoutMs: options.pasteFetchTimeoutMs, quietMs: options.pasteSettleMs }, viaNut) : viaNut;
}
