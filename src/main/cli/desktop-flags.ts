/**
 * The desktop flags of `mnemo run`, `mnemo replay` and `mnemo workflow run` (declared in options.ts), turned into what
 * the run service is asked for. Checked when the command runs, not at every start of `mnemo`.
 */
import type { DesktopRequest } from '../../shared/desktop';
import { parseDesktopSize } from '../../shared/desktop-size';

/** The desktop flags as commander parsed them. */
export interface DesktopFlags {
  desktop?: 'private' | 'user';
  desktopSize?: string;
  app?: string[];
  keepDesktop?: boolean;
  liveFps?: number;
}

export type DesktopFlagsResult = { ok: true; request: DesktopRequest | undefined } | { ok: false; message: string };

/**
 * What the desktop flags ask for: a private desktop (size and apps from the flags, else the
 * settings), the user's display, or nothing said (undefined). The private desktop's own flags
 * without `--desktop private` are a mistake: said, rather than ignored. `recordedPrivate`: a
 * replay, where `--keep-desktop` may keep the private desktop its session recorded.
 */
export function desktopRequestOf(flags: DesktopFlags, options: { recordedPrivate?: boolean } = {}): DesktopFlagsResult {
  if (flags.desktopSize !== undefined) {
    const size = parseDesktopSize(flags.desktopSize);
    if (!size.ok) return { ok: false, message: `--desktop-size: ${size.message}` };
  }
  const modifiers = [flags.desktopSize !== undefined && '--desktop-size', flags.app !== undefined && '--app', flags.keepDesktop && !options.recordedPrivate && '--keep-desktop'].filter(
    (flag): flag is string => typeof flag === 'string',
  );
  if (flags.desktop !== 'private' && modifiers.length > 0) {
    return { ok: false, message: `${modifiers.join(', ')} ${modifiers.length === 1 ? 'applies' : 'apply'} to a private desktop: add --desktop private` };
  }
  if (flags.desktop === 'user') return { ok: true, request: { private: false } };
  if (flags.desktop !== 'private') return { ok: true, request: undefined };
  return { ok: true, request: { private: true, ...(flags.desktopSize ? { size: flags.desktopSize } : {}), ...(flags.app ? { apps: flags.app } : {}) } };
}
