/**
 * Opens an X11 connection in plain JavaScript: the socket and the connection setup, nothing more.
 * Unlike Xlib (through libnut), a server that hangs up, refuses or is not there is a value here,
 * never a crash, and a connection held open counts as a client of the server (see display-check.ts
 * for why that matters on a bare X server). Unlike x11/connection.ts, which goes on to make
 * requests, it tells why a setup failed, so that a server resetting is told apart from one that
 * refuses or is not there.
 *
 * The setup asks for little-endian byte order, so every number below is LE.
 */
import { connect, type Socket } from 'node:net';
import type { XAuthCookie } from './x11/auth';

/** Where a server may listen: a unix socket path ('\0' first for Linux's abstract ones) or TCP. */
export type XAddress = { path: string } | { host: string; port: number };

export type XOpenFailureKind =
  /** Nothing listens there (no socket, connection refused). */
  | 'unreachable'
  /** The server answered the setup with a refusal (authorisation, usually). */
  | 'refused'
  /** The server hung up during the setup: a reset in progress kills new clients, for example. */
  | 'dropped'
  /** Connected, but no answer to the setup in time (a server still starting, or stopped). */
  | 'no_answer';

export type XOpen = { ok: true; socket: Socket } | { ok: false; kind: XOpenFailureKind; reason: string };

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
  const length = reply.readUInt8(0) === 0 ? reply.readUInt8(1) : reply.length - 8;
  return reply.subarray(8, 8 + length).toString('latin1').replace(/\0+$/, '').trim();
}

/** One attempt on one address: connect, send the setup, read the whole setup reply. */
function openOne(address: XAddress, cookie: XAuthCookie | undefined, timeoutMs: number): Promise<XOpen> {
  return new Promise((resolve) => {
    const socket = connect(address);
    let connected = false;
    let received = Buffer.alloc(0);
    const finish = (result: XOpen) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      if (result.ok) {
        // Nothing is asked of the server after the setup; whatever it sends is of no interest.
        socket.on('data', () => undefined);
        socket.on('error', () => undefined);
      } else socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ ok: false, kind: connected ? 'no_answer' : 'unreachable', reason: connected ? `no answer to the connection setup within ${timeoutMs} ms` : `no connection within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.once('connect', () => {
      connected = true;
      socket.write(setupRequest(cookie));
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(connected ? { ok: false, kind: 'dropped', reason: error.message } : { ok: false, kind: 'unreachable', reason: error.code ?? error.message }),
    );
    socket.once('close', () => finish({ ok: false, kind: connected ? 'dropped' : 'unreachable', reason: 'the server closed the connection during the setup' }));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 8) return;
      const size = 8 + 4 * received.readUInt16LE(6);
      if (received.length < size) return;
      if (received.readUInt8(0) === 1) return finish({ ok: true, socket });
      const reason = refusalReason(received.subarray(0, size));
      finish({ ok: false, kind: 'refused', reason: reason || 'no reason given' });
    });
  });
}

/**
 * Opens the display at the first address that accepts a connection. Only an unreachable address
 * moves on to the next one: once a server has answered, its answer is the result.
 */
export async function openXConnection(addresses: readonly XAddress[], cookie: XAuthCookie | undefined, timeoutMs: number): Promise<XOpen> {
  let last: XOpen = { ok: false, kind: 'unreachable', reason: 'no address to connect to' };
  for (const address of addresses) {
    last = await openOne(address, cookie, timeoutMs);
    if (last.ok || last.kind !== 'unreachable') return last;
  }
  return last;
}
