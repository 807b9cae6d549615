/**
 * A minimal X11 protocol client: the handshake, requests with and without replies, and a round
 * trip that collects the errors of the requests without one. Just enough for reading the keyboard
 * mapping and injecting key events through XTEST (x11-keyboard.ts), which libnut cannot do: it
 * presses keys by keysym, so it cannot reach a given key and level (AltGr) on a non-US layout.
 *
 * Little-endian byte order is asked for in the handshake, so every number is LE here.
 */
import { connect, type Socket } from 'node:net';
import { readCookie, type XAuthCookie } from './auth';

export type Opened<T> = { ok: true; value: T } | { ok: false; message: string };

export type DisplayAddress = { kind: 'unix'; number: string; paths: string[] } | { kind: 'tcp'; number: string; host: string; port: number };

export interface X11Error {
  code: number;
  sequence: number;
  majorOpcode: number;
  minorOpcode: number;
  badValue: number;
}

export interface X11Setup {
  minKeycode: number;
  maxKeycode: number;
}

const X_TCP_PORT = 6000;
const DEFAULT_TIMEOUT_MS = 5000;
const GET_INPUT_FOCUS = 43;

/** Where to reach a display named as in DISPLAY: `:1`, `unix:1.0`, `host:1`. */
export function parseDisplayName(display: string): DisplayAddress | undefined {
  const match = /^(.*):(\d+)(?:\.\d+)?$/.exec(display.trim());
  if (!match) return undefined;
  const host = match[1] as string;
  const number = match[2] as string;
  if (host === '' || host === 'unix') {
    // The file socket first; Linux servers also listen on the abstract one (in another mount
    // namespace, such as a sandbox, only that one may be reachable).
    return { kind: 'unix', number, paths: [`/tmp/.X11-unix/X${number}`, `\0/tmp/.X11-unix/X${number}`] };
  }
  // XQuartz names a launchd socket path.
  if (host.startsWith('/')) return { kind: 'unix', number, paths: [`${host}:${number}`] };
  return { kind: 'tcp', number, host, port: X_TCP_PORT + Number(number) };
}

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

function pad4(length: number): number {
  return (4 - (length % 4)) % 4;
}

function setupRequest(cookie: XAuthCookie | undefined): Buffer {
  const name = Buffer.from(cookie?.name ?? '', 'latin1');
  const data = cookie?.data ?? Buffer.alloc(0);
  const request = Buffer.alloc(12 + name.length + pad4(name.length) + data.length + pad4(data.length));
  request.write('l', 0, 'latin1');
  request.writeUInt16LE(11, 2);
  request.writeUInt16LE(0, 4);
  request.writeUInt16LE(name.length, 6);
  request.writeUInt16LE(data.length, 8);
  name.copy(request, 12);
  data.copy(request, 12 + name.length + pad4(name.length));
  return request;
}

function connectSocket(address: DisplayAddress, path: string | undefined): Socket {
  return address.kind === 'unix' ? connect({ path: path as string }) : connect({ host: address.host, port: address.port });
}

interface Pending {
  resolve: (reply: Buffer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class X11Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private sequence = 0;
  private readonly pending = new Map<number, Pending>();
  private errors: X11Error[] = [];
  private closedBecause: string | undefined;

  private constructor(
    private readonly socket: Socket,
    readonly setup: X11Setup,
    leftover: Buffer,
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
    const address = parseDisplayName(display);
    if (!address) return { ok: false, message: `DISPLAY "${display}" is not a display name such as ":0"` };
    const cookie = await readCookie(address.number, env);
    const paths = address.kind === 'unix' ? address.paths : [undefined];
    let lastProblem = '';
    for (const path of paths) {
      const attempt = await handshake(connectSocket(address, path), cookie, timeoutMs);
      if (attempt.ok) return { ok: true, value: new X11Connection(attempt.value.socket, attempt.value.setup, attempt.value.leftover) };
      lastProblem = attempt.message;
    }
    return { ok: false, message: `cannot open display ${display}: ${lastProblem}` };
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
        if (this.pending.has(sequence)) this.settle(sequence, undefined, new Error(describeError(error)));
        else this.errors.push(error);
      }
      // Events (MappingNotify goes to every client) are not needed here.
    }
  }

  private settle(sequence: number, reply: Buffer | undefined, error?: Error): void {
    const waiting = this.pending.get(sequence);
    if (!waiting) return;
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

export function describeError(error: X11Error): string {
  return `X error ${error.code} on request ${error.majorOpcode}.${error.minorOpcode} (value ${error.badValue})`;
}

type Handshake = Opened<{ socket: Socket; setup: X11Setup; leftover: Buffer }>;

function handshake(socket: Socket, cookie: XAuthCookie | undefined, timeoutMs: number): Promise<Handshake> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const finish = (result: Handshake) => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      socket.removeAllListeners('error');
      socket.removeAllListeners('connect');
      if (!result.ok) socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, message: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.on('error', (error) => finish({ ok: false, message: error.message }));
    socket.on('connect', () => socket.write(setupRequest(cookie)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 8) return;
      const size = 8 + 4 * received.readUInt16LE(6);
      if (received.length < size) return;
      const status = received.readUInt8(0);
      if (status !== 1) {
        // Failed (0) carries its reason's length in byte 1; Authenticate (2) a padded reason.
        const reasonLength = status === 0 ? received.readUInt8(1) : size - 8;
        const reason = received.subarray(8, 8 + reasonLength).toString('latin1').replace(/\0+$/, '').trim();
        finish({ ok: false, message: `the X server refused the connection${reason ? `: ${reason}` : ''}` });
        return;
      }
      finish({ ok: true, value: { socket, setup: { minKeycode: received.readUInt8(34), maxKeycode: received.readUInt8(35) }, leftover: received.subarray(size) } });
    });
  });
}
