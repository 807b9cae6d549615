/**
 * Where an X display named as in DISPLAY (`[host]:number[.screen]`) can be reached. The display
 * hold and the keyboard's own connection must reach the same server libnut opens, so both use
 * these addresses, in the order Xlib (xcb) tries them.
 */

export interface DisplayName {
  /** '' and 'unix' are this machine; a path (XQuartz's launchd socket) or a TCP host otherwise. */
  host: string;
  number: number;
}

/** A unix socket path ('\0' first for Linux's abstract ones) or a TCP endpoint. */
export type XAddress = { path: string } | { host: string; port: number };

const X_TCP_PORT = 6000;

export function parseDisplayName(value: string): DisplayName | undefined {
  const match = /^([^:]*):(\d+)(?:\.\d+)?$/.exec(value.trim());
  if (!match) return undefined;
  return { host: match[1] ?? '', number: Number(match[2]) };
}

export function addressesOf(display: DisplayName, platform: NodeJS.Platform = process.platform): XAddress[] {
  const { host, number } = display;
  // XQuartz puts the display in DISPLAY as the path of its launchd socket.
  if (host.startsWith('/')) return [{ path: `${host}:${number}` }];
  const tcp = { host: host === '' || host === 'unix' ? '127.0.0.1' : host, port: X_TCP_PORT + number };
  if (host !== '' && host !== 'unix') return [tcp];
  const path = `/tmp/.X11-unix/X${number}`;
  // Linux servers also listen on the abstract socket of the same name: in another mount namespace
  // (a sandbox) it may be the only one reachable.
  const local: XAddress[] = platform === 'linux' ? [{ path }, { path: `\0${path}` }] : [{ path }];
  // Only a bare `:N` falls back to TCP on this machine, as xcb does; `unix:N` never does.
  return host === '' ? [...local, tcp] : local;
}
