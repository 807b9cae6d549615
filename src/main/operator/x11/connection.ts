/**
 * A minimal X11 protocol client: requests with and without replies on a connection opened by the
 * shared connection setup (setup.ts), and a round trip that collects the errors of the requests
 * without one. Just enough for reading the keyboard mapping and injecting key events through XTEST
 * (x11-keyboard.ts), which libnut cannot do: it presses keys by keysym, so it cannot reach a given
 * key and level (AltGr) on a non-US layout; and for recording the user's input through RECORD
 * (record.ts), whose one request is answered by a stream of replies. Events are handed to
 * listeners (onEvent): the clipboard owner (clipboard-owner.ts) answers the selection requests of
 * other clients with them.
 *
 * Little-endian byte order is asked for in the setup, so every number is LE here.
 */
import type { Socket } from 'node:net';
import { readCookie } from './auth';
import { addressesOf, parseDisplayName } from './display-name';
import { firstScreen, keycodeRange, maxRequestBytes, openX, resourceIds, type ResourceIds, type X11Screen, type X11Setup } from './setup';

export type Opened<T> = { ok: true; value: T } | { ok: false; message: string };

export interface X11Error {
  code: number;
  sequence: number;
  majorOpcode: number;
  minorOpcode: number;
  badValue: number;
}

const DEFAULT_TIMEOUT_MS = 5000;
const GET_INPUT_FOCUS = 43;

/** A request: major opcode, one header byte (minor opcode or data), the body padded to 4 bytes. */
export function packRequest(major: number, headerByte: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const padded = Math.ceil(body.length / 4) * 4;
  const request = Buffer.alloc(4 + padded);
  request.writeUInt8(major, 0);
  request.writeUInt8(headerByte, 1);
  request.writeUInt16LE(1 + padded / 4, 2);
  body.copy(request, 4);
  return request;
}

/** The body of a request whose one argument is a 32-bit value (a window, an atom, a context). */
export function uint32Body(value: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt32LE(value, 0);
  return body;
}

/** The body of a request that names something (QueryExtension, InternAtom): its length, then the Latin-1 name. */
export function nameBody(name: string): Buffer {
  const encoded = Buffer.from(name, 'latin1');
  const body = Buffer.alloc(4 + encoded.length);
  body.writeUInt16LE(encoded.length, 0);
  encoded.copy(body, 4);
  return body;
}

interface Pending {
  resolve: (reply: Buffer) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
  /** A request answered by a stream of replies (RECORD's EnableContext): true for the last one. */
  each?: (reply: Buffer) => boolean;
}

/** Receives each event (32 bytes; byte 0 is its code, with 0x80 set when another client sent it). */
export type X11EventListener = (event: Buffer) => void;

export class X11Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly eventListeners = new Set<X11EventListener>();
  private sequence = 0;
  private readonly pending = new Map<number, Pending>();
  private errors: X11Error[] = [];
  private closedBecause: string | undefined;
  private lastId = 0;

  private constructor(
    private readonly socket: Socket,
    readonly setup: X11Setup,
    leftover: Buffer,
    private readonly ids: ResourceIds,
    /** The first screen (its root window), when the setup reply held one. */
    readonly screen?: X11Screen,
    /** The largest request the server takes, in bytes (0 when the setup reply did not say). */
    readonly maxRequestBytes = 0,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.fail(`the X connection failed: ${error.message}`));
    socket.on('close', () => this.fail('the X server closed the connection'));
    // An idle connection must not keep a command-line process alive; pending requests keep it
    // alive through their timers.
    socket.unref();
    if (leftover.length > 0) this.receive(leftover);
  }

  static async open(display: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Opened<X11Connection>> {
    const name = parseDisplayName(display);
    if (!name) return { ok: false, message: `DISPLAY "${display}" is not a display name such as ":0"` };
    const opened = await openX(addressesOf(name), await readCookie(String(name.number), env), timeoutMs);
    if (!opened.ok) {
      const problem = opened.kind === 'refused' ? `the X server refused the connection: ${opened.reason}` : opened.reason;
      return { ok: false, message: `cannot open display ${display}: ${problem}` };
    }
    const setup = keycodeRange(opened.reply);
    if (!setup) {
      opened.socket.destroy();
      return { ok: false, message: `cannot open display ${display}: its setup reply (${opened.reply.length} bytes) is too short to hold the keycode range` };
    }
    return {
      ok: true,
      value: new X11Connection(opened.socket, setup, opened.leftover, resourceIds(opened.reply), firstScreen(opened.reply), maxRequestBytes(opened.reply)),
    };
  }

  get closed(): boolean {
    return this.closedBecause !== undefined;
  }

  /** Sends a request that has a reply and resolves with the whole reply (header included). */
  request(bytes: Buffer, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Buffer> {
    if (this.closedBecause) return Promise.reject(new Error(this.closedBecause));
    const sequence = this.write(bytes);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // Replies come in order: one that never arrives means the stream cannot be trusted.
        this.fail(`the X server did not answer within ${timeoutMs} ms`);
      }, timeoutMs);
      this.pending.set(sequence, { resolve, reject, timer });
    });
  }

  /**
   * Sends a request answered by a stream of replies with its sequence number (RECORD's
   * EnableContext: one reply per batch of recorded data, until the context is disabled from
   * another connection). `each` sees every reply and returns true for the last one; no timeout,
   * and the connection keeps the process alive while the stream lasts.
   */
  stream(bytes: Buffer, each: (reply: Buffer) => boolean): Promise<void> {
    if (this.closedBecause) return Promise.reject(new Error(this.closedBecause));
    const sequence = this.write(bytes);
    this.socket.ref();
    return new Promise<void>((resolve, reject) => {
      this.pending.set(sequence, { resolve: () => resolve(), reject, each });
    }).finally(() => this.socket.unref());
  }

  /** A new id for a resource this client creates. */
  newId(): number {
    this.lastId++;
    return (this.ids.base | (this.lastId & this.ids.mask)) >>> 0;
  }

  /** Sends a request without a reply; its errors are reported by the next sync(). */
  send(bytes: Buffer): void {
    if (this.closedBecause) throw new Error(this.closedBecause);
    this.write(bytes);
  }

  /**
   * A round trip: once it returns, the server has processed every request sent before. Returns
   * (and forgets) the errors of the requests without replies.
   */
  async sync(): Promise<X11Error[]> {
    await this.request(packRequest(GET_INPUT_FOCUS, 0));
    const errors = this.errors;
    this.errors = [];
    return errors;
  }

  /** Adds an event listener (it must not throw: it runs inside the socket's reader); returns its removal. */
  onEvent(listener: X11EventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  close(): void {
    this.fail('the X connection was closed');
    this.socket.destroy();
  }

  private write(bytes: Buffer): number {
    this.sequence = (this.sequence + 1) & 0xffff;
    this.socket.write(bytes);
    return this.sequence;
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 32) {
      const kind = this.buffer.readUInt8(0) & 0x7f;
      // Replies (1) and generic events (35) carry extra length; errors and events are 32 bytes.
      const size = kind === 1 || kind === 35 ? 32 + 4 * this.buffer.readUInt32LE(4) : 32;
      if (this.buffer.length < size) return;
      const packet = this.buffer.subarray(0, size);
      this.buffer = this.buffer.subarray(size);
      const sequence = packet.readUInt16LE(2);
      if (kind === 1) this.settle(sequence, packet);
      else if (kind === 0) {
        const error: X11Error = {
          code: packet.readUInt8(1),
          sequence,
          badValue: packet.readUInt32LE(4),
          minorOpcode: packet.readUInt16LE(8),
          majorOpcode: packet.readUInt8(10),
        };
        if (this.pending.has(sequence)) this.settle(sequence, undefined, new Error(describeX11Error(error)));
        else this.errors.push(error);
      } else if (kind !== 35) {
        // Core events; generic events (35, extensions only) are not asked for by anyone here.
        const event = Buffer.from(packet);
        for (const listener of this.eventListeners) listener(event);
      }
    }
  }

  private settle(sequence: number, reply: Buffer | undefined, error?: Error): void {
    const waiting = this.pending.get(sequence);
    if (!waiting) return;
    if (waiting.each && reply && !error && !waiting.each(Buffer.from(reply))) return;
    this.pending.delete(sequence);
    clearTimeout(waiting.timer);
    if (error) waiting.reject(error);
    else waiting.resolve(Buffer.from(reply as Buffer));
  }

  private fail(reason: string): void {
    if (this.closedBecause) return;
    this.closedBecause = reason;
    for (const [sequence, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error(reason));
      this.pending.delete(sequence);
    }
    this.socket.destroy();
  }
}

export function describeX11Error(error: X11Error): string {
  return `X error ${error.code} on request ${error.majorOpcode}.${error.minorOpcode} (value ${error.badValue})`;
}
