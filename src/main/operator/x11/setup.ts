/**
 * The X11 connection setup in plain JavaScript: connect, send the setup request with the
 * Xauthority cookie, read the whole setup reply. Unlike Xlib (through libnut), a server that hangs
 * up, refuses or is not there is a value here, never a crash, and the value says which: a server
 * resetting (it hangs up on new clients) must be told apart from one that refuses or is not there.
 * The display hold (display-check.ts) and the keyboard's connection (connection.ts) both open
 * their connections here.
 *
 * The setup asks for little-endian byte order, so every number of the protocol is LE.
 */
import { connect, type Socket } from 'node:net';
import type { XAuthCookie } from './auth';
import type { XAddress } from './display-name';

export type SetupFailureKind =
  /** Nothing listens there (no socket, connection refused). */
  | 'unreachable'
  /** The server answered the setup with a refusal (authorisation, usually). */
  | 'refused'
  /** The server hung up during the setup: a reset in progress kills new clients, for example. */
  | 'dropped'
  /** Connected, but no answer to the setup in time (a server still starting, or stopped). */
  | 'no_answer';

export type XSetup =
  /** `reply` is the server's whole success reply, `leftover` what it sent after it. None of our listeners is left on `socket`: add yours at once. */
  | { ok: true; socket: Socket; reply: Buffer; leftover: Buffer }
  /** For 'refused', `reason` is the server's own text. */
  | { ok: false; kind: SetupFailureKind; reason: string };

function pad4(length: number): number {
  return (4 - (length % 4)) % 4;
}

function setupRequest(cookie: XAuthCookie | undefined): Buffer {
  const name = Buffer.from(cookie?.name ?? '', 'latin1');
  const data = cookie?.data ?? Buffer.alloc(0);
  const request = Buffer.alloc(12 + name.length + pad4(name.length) + data.length + pad4(data.length));
  request.write('l', 0, 'latin1');
  request.writeUInt16LE(11, 2); // protocol 11.0
  request.writeUInt16LE(name.length, 6);
  request.writeUInt16LE(data.length, 8);
  name.copy(request, 12);
  data.copy(request, 12 + name.length + pad4(name.length));
  return request;
}

/** The reason text of a Failed (0) or Authenticate (2) setup reply. */
function refusalReason(reply: Buffer): string {
  // Failed carries its reason's length in byte 1; Authenticate only a padded reason.
  const length = reply.readUInt8(0) === 0 ? reply.readUInt8(1) : reply.length - 8;
  return reply.subarray(8, 8 + length).toString('latin1').replace(/\0+$/, '').trim();
}

/** One attempt on one address: connect, send the setup, read the whole setup reply. */
function setupAt(address: XAddress, cookie: XAuthCookie | undefined, timeoutMs: number): Promise<XSetup> {
  return new Promise((resolve) => {
    const socket = connect(address);
    let connected = false;
    let received = Buffer.alloc(0);
    const finish = (result: XSetup) => {
      clearTimeout(timer);
      // Only ours: node's own listeners (the end of the stream) must stay.
      for (const event of ['connect', 'error', 'close', 'data']) socket.removeAllListeners(event);
      if (!result.ok) socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () =>
        finish(
          connected
            ? { ok: false, kind: 'no_answer', reason: `no answer within ${timeoutMs} ms to the connection setup` }
            : { ok: false, kind: 'unreachable', reason: `no connection within ${timeoutMs} ms` },
        ),
      timeoutMs,
    );
    socket.once('connect', () => {
      connected = true;
      socket.write(setupRequest(cookie));
    });
    socket.on('error', (error) => finish({ ok: false, kind: connected ? 'dropped' : 'unreachable', reason: error.message }));
    // A server that hangs up without an error (as one resetting does) must not wait for the timer.
    socket.once('close', () => finish({ ok: false, kind: connected ? 'dropped' : 'unreachable', reason: 'the server closed the connection during the setup' }));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 8) return;
      const size = 8 + 4 * received.readUInt16LE(6);
      if (received.length < size) return;
      const reply = received.subarray(0, size);
      if (reply.readUInt8(0) === 1) return finish({ ok: true, socket, reply, leftover: received.subarray(size) });
      finish({ ok: false, kind: 'refused', reason: refusalReason(reply) || 'no reason given' });
    });
  });
}

/**
 * Opens the display at the first address that accepts a connection. Only an unreachable address
 * moves on to the next one: once a server has answered, its answer is the result.
 */
export async function openX(addresses: readonly XAddress[], cookie: XAuthCookie | undefined, timeoutMs: number): Promise<XSetup> {
  let last: XSetup = { ok: false, kind: 'unreachable', reason: 'no address to connect to' };
  for (const address of addresses) {
    last = await setupAt(address, cookie, timeoutMs);
    if (last.ok || last.kind !== 'unreachable') return last;
  }
  return last;
}

/** What the keyboard needs of a success reply: the range of keycodes the server uses. */
export interface X11Setup {
  minKeycode: number;
  maxKeycode: number;
}

/** The keycode range of a success reply, or undefined when the reply is too short to hold it. */
export function keycodeRange(reply: Buffer): X11Setup | undefined {
  return reply.length >= 36 ? { minKeycode: reply.readUInt8(34), maxKeycode: reply.readUInt8(35) } : undefined;
}

/** The ids this client may give the resources it creates (a RECORD context): base | n, n within mask. */
export interface ResourceIds {
  base: number;
  mask: number;
}

/** The resource id range of a success reply (zeros when the reply is too short to hold it). */
export function resourceIds(reply: Buffer): ResourceIds {
  return reply.length >= 20 ? { base: reply.readUInt32LE(12), mask: reply.readUInt32LE(16) } : { base: 0, mask: 0 };
}

/** The first screen of a success reply: its root window and size in pixels. */
export interface X11Screen {
  root: number;
  width: number;
  height: number;
}

/** The first screen of a success reply, or undefined when the reply is too short to hold one. */
export function firstScreen(reply: Buffer): X11Screen | undefined {
  if (reply.length < 40) return undefined;
  const vendorLength = reply.readUInt16LE(24);
  const formats = reply.readUInt8(29);
  // The vendor string (padded to 4) and the pixmap formats (8 bytes each) come before the screens.
  const screen = 40 + vendorLength + pad4(vendorLength) + 8 * formats;
  if (reply.readUInt8(28) === 0 || reply.length < screen + 24) return undefined;
  return { root: reply.readUInt32LE(screen), width: reply.readUInt16LE(screen + 20), height: reply.readUInt16LE(screen + 22) };
}

/** The largest request a success reply's server takes, in bytes (without BIG-REQUESTS); 0 when the reply is too short to say. */
export function maxRequestBytes(reply: Buffer): number {
  return reply.length >= 28 ? 4 * reply.readUInt16LE(26) : 0;
}
