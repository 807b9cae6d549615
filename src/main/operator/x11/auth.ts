/**
 * The X authority cookie for a display, read from the Xauthority file (XAUTHORITY, or
 * ~/.Xauthority) as Xlib does. A display started without access control (Xvfb without -auth)
 * needs none: then the connection is opened without a cookie.
 */
import { readFile } from 'node:fs/promises';
import { hostname, homedir } from 'node:os';
import { join } from 'node:path';

export interface XAuthEntry {
  family: number;
  address: string;
  display: string;
  name: string;
  data: Buffer;
}

export interface XAuthCookie {
  name: string;
  data: Buffer;
}

export const FAMILY_LOCAL = 256;
export const FAMILY_WILD = 65535;
export const COOKIE_NAME = 'MIT-MAGIC-COOKIE-1';

function lengthPrefixed(value: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(value.length, 0);
  return Buffer.concat([length, value]);
}

/** One Xauthority record as xauth writes it (big-endian lengths). */
export function xauthorityRecord(family: number, address: string, display: string, name: string, data: Buffer): Buffer {
  const head = Buffer.alloc(2);
  head.writeUInt16BE(family, 0);
  return Buffer.concat([head, ...[address, display, name].map((text) => lengthPrefixed(Buffer.from(text, 'latin1'))), lengthPrefixed(data)]);
}

/** An Xauthority file with one cookie for a display number on any host (what a private X server is started with). */
export function cookieFile(displayNumber: string, cookie: Buffer): Buffer {
  return xauthorityRecord(FAMILY_WILD, '', displayNumber, COOKIE_NAME, cookie);
}

/** Parses an Xauthority file: a list of (family, address, display number, name, data) records. */
export function parseXAuthority(file: Buffer): XAuthEntry[] {
  const entries: XAuthEntry[] = [];
  let offset = 0;
  const field = (): Buffer | undefined => {
    if (offset + 2 > file.length) return undefined;
    const length = file.readUInt16BE(offset);
    if (offset + 2 + length > file.length) return undefined;
    const value = file.subarray(offset + 2, offset + 2 + length);
    offset += 2 + length;
    return value;
  };
  while (offset + 2 <= file.length) {
    const family = file.readUInt16BE(offset);
    offset += 2;
    const address = field();
    const display = field();
    const name = field();
    const data = field();
    // A truncated record ends the list: what came before is still usable.
    if (!address || !display || !name || !data) break;
    entries.push({ family, address: address.toString('latin1'), display: display.toString('latin1'), name: name.toString('latin1'), data: Buffer.from(data) });
  }
  return entries;
}

/** The cookie for a local display number, or undefined when the file has none for it. */
export function cookieFor(entries: readonly XAuthEntry[], displayNumber: string, host: string = hostname()): XAuthCookie | undefined {
  const match = entries.find(
    (entry) =>
      entry.name === COOKIE_NAME &&
      (entry.display === displayNumber || entry.display === '') &&
      (entry.family === FAMILY_WILD || (entry.family === FAMILY_LOCAL && entry.address === host)),
  );
  return match ? { name: match.name, data: match.data } : undefined;
}

export async function readCookie(displayNumber: string, env: NodeJS.ProcessEnv = process.env): Promise<XAuthCookie | undefined> {
  const path = env.XAUTHORITY || join(env.HOME || homedir(), '.Xauthority');
  try {
    return cookieFor(parseXAuthority(await readFile(path)), displayNumber);
  } catch {
    // No file: the server may not ask for a cookie; if it does, the handshake says so.
    return undefined;
  }
}
