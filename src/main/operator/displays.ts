/**
 * The list of displays with their bounds in the global desktop space and their scale factors.
 * Linux asks xrandr (through screenshot-desktop's parser); Windows gets bounds and DPI scale from
 * screenshot-desktop too; where bounds are unknown (macOS) the primary display's size comes from
 * the input layer.
 */
import screenshot from 'screenshot-desktop';
import type { DisplayInfo, Size } from '../../shared/frame';

/** What screenshot-desktop reports, across its platforms (fields vary by platform). */
interface ReportedDisplay {
  id: string | number;
  name?: string;
  primary?: boolean;
  width?: number;
  height?: number;
  offsetX?: number;
  offsetY?: number;
  left?: number;
  top?: number;
  dpiScale?: number;
}

/** Scale factor override for X11, where the server does not say (GDK_SCALE is what GTK apps use). */
function x11ScaleFactor(env: NodeJS.ProcessEnv): number {
  const value = Number(env.MNEMO_SCALE_FACTOR ?? env.GDK_SCALE ?? 1);
  return Number.isFinite(value) && value > 0 ? value : 1;
}

/**
 * Turns a platform report into DisplayInfo. Displays without known bounds get the primary size
 * at the origin; if none is marked primary, the first one is.
 */
export function normalizeDisplays(reported: readonly ReportedDisplay[], primarySize: Size, env: NodeJS.ProcessEnv = process.env): DisplayInfo[] {
  const primaryIndex = Math.max(0, reported.findIndex((display) => display.primary === true));
  const displays = reported.map((display, index): DisplayInfo => {
    const hasBounds = display.width !== undefined && display.height !== undefined && display.width > 0 && display.height > 0;
    const dpiScale = display.dpiScale;
    const scaleFactor = dpiScale !== undefined && dpiScale > 0 ? dpiScale : x11ScaleFactor(env);
    return {
      index,
      id: String(display.id),
      name: display.name ?? String(display.id),
      bounds: hasBounds
        ? {
            x: display.offsetX ?? display.left ?? 0,
            y: display.offsetY ?? display.top ?? 0,
            width: display.width as number,
            height: display.height as number,
          }
        : { x: 0, y: 0, width: primarySize.width, height: primarySize.height },
      scaleFactor,
      primary: index === primaryIndex,
    };
  });
  if (displays.length === 0) {
    return [
      {
        index: 0,
        id: 'screen',
        name: 'screen',
        bounds: { x: 0, y: 0, width: primarySize.width, height: primarySize.height },
        scaleFactor: x11ScaleFactor(env),
        primary: true,
      },
    ];
  }
  return displays;
}

/** All displays, primary marked. Never throws: a platform that cannot list gives the primary screen. */
export async function listDisplays(primarySize: () => Promise<Size>): Promise<DisplayInfo[]> {
  let reported: ReportedDisplay[] = [];
  try {
    reported = (await screenshot.listDisplays()) as ReportedDisplay[];
  } catch {
    // xrandr missing or failing: fall back to the one screen the input layer knows.
  }
  return normalizeDisplays(reported, await primarySize());
}
