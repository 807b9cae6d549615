/**
 * The X11 client against a scripted server on 127.0.0.1 (a display "127.0.0.1:N" is TCP port
 * 6000+N): the handshake's answers, replies matched to requests, the errors of requests without
 * replies reported by sync(), and an Xauthority file read as Xlib reads it.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { cookieFor, parseXAuthority } from '../../../src/main/operator/x11/auth';
import { packRequest, parseDisplayName, X11Connection } from '../../../src/main/operator/x11/connection';
import { fakeKey, getKeyboardMapping, getModifierMapping } from '../../../src/main/operator/x11/requests';

type Script = (socket: Socket, setup: Buffer) => void;

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Starts a server that runs `script` once a client's setup request has arrived; resolves with its display name. */
async function scriptedServer(script: Script): Promise<string> {
  server = createServer((socket) => {
    sockets.push(socket);
    socket.once('data', (setup) => script(socket, setup));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return `127.0.0.1:${port - 6000}`;
}

function setupReply(minKeycode: number, maxKeycode: number): Buffer {
  // The header, then the fixed part of a success reply up to the keycode range (no screens).
  const reply = Buffer.alloc(40);
  reply.writeUInt8(1, 0);
  reply.writeUInt16LE(11, 2);
  reply.writeUInt16LE(8, 6);
  reply.writeUInt8(minKeycode, 34);
  reply.writeUInt8(maxKeycode, 35);
  return reply;
}

function refusal(reason: string): Buffer {
  const text = Buffer.from(reason, 'latin1');
  const padded = Math.ceil(text.length / 4) * 4;
  const reply = Buffer.alloc(8 + padded);
  reply.writeUInt8(0, 0);
  reply.writeUInt8(text.length, 1);
  reply.writeUInt16LE(padded / 4, 6);
  text.copy(reply, 8);
  return reply;
}

function reply(sequence: number, headerByte: number, data: Buffer = Buffer.alloc(0)): Buffer {
  const packet = Buffer.alloc(32 + data.length);
  packet.writeUInt8(1, 0);
  packet.writeUInt8(headerByte, 1);
  packet.writeUInt16LE(sequence, 2);
  packet.writeUInt32LE(data.length / 4, 4);
  data.copy(packet, 32);
  return packet;
}

function error(sequence: number, code: number, major: number): Buffer {
  const packet = Buffer.alloc(32);
  packet.writeUInt8(0, 0);
  packet.writeUInt8(code, 1);
  packet.writeUInt16LE(sequence, 2);
  packet.writeUInt8(major, 10);
  return packet;
}

/** Splits a stream of requests into (opcode, sequence) pairs as the server numbers them. */
function requestsIn(stream: Buffer, firstSequence: number): Array<{ opcode: number; sequence: number }> {
  const requests = [];
  let offset = 0;
  let sequence = firstSequence;
  while (offset + 4 <= stream.length) {
    requests.push({ opcode: stream.readUInt8(offset), sequence: sequence++ });
    offset += 4 * stream.readUInt16LE(offset + 2);
  }
  return requests;
}

describe('parseDisplayName', () => {
  it('local, unix and TCP displays', () => {
    expect(parseDisplayName(':131')).toEqual({ kind: 'unix', number: '131', paths: ['/tmp/.X11-unix/X131', '\0/tmp/.X11-unix/X131'] });
    expect(parseDisplayName('unix:0.0')).toMatchObject({ kind: 'unix', number: '0' });
    expect(parseDisplayName('localhost:10.0')).toEqual({ kind: 'tcp', number: '10', host: 'localhost', port: 6010 });
    expect(parseDisplayName('garbage')).toBeUndefined();
  });
});

describe('packRequest', () => {
  it('pads the body and counts the length in 4-byte units', () => {
    const request = packRequest(98, 0, Buffer.from([1, 2, 3, 4, 5]));
    expect(request.length).toBe(12);
    expect(request.readUInt16LE(2)).toBe(3);
  });
});

describe('X11Connection', () => {
  it('sends the cookie-less setup in little-endian order and reads the keycode range', async () => {
    let setup: Buffer = Buffer.alloc(0);
    const display = await scriptedServer((socket, request) => {
      setup = request;
      socket.write(setupReply(8, 255));
    });
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' });
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.value.setup).toEqual({ minKeycode: 8, maxKeycode: 255 });
    expect(setup.toString('latin1', 0, 1)).toBe('l');
    expect(setup.readUInt16LE(2)).toBe(11);
    opened.value.close();
  });

  it('a refusal is a message with the server’s reason', async () => {
    const display = await scriptedServer((socket) => socket.end(refusal('No protocol specified')));
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' });
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining('No protocol specified') });
  });

  it('a server that never answers the setup is a message, not a hang', async () => {
    const display = await scriptedServer(() => undefined);
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' }, 200);
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining('no answer within 200 ms') });
  });

  it('nothing listening is a message naming the display', async () => {
    const opened = await X11Connection.open('127.0.0.1:59000', { XAUTHORITY: '/nonexistent' }, 1000);
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining('cannot open display 127.0.0.1:59000') });
  });

  it('matches replies to requests, and sync() reports the errors of requests without replies', async () => {
    const display = await scriptedServer((socket) => {
      socket.write(setupReply(8, 9));
      let nextSequence = 1;
      socket.on('data', (stream) => {
        for (const { opcode, sequence } of requestsIn(stream, nextSequence)) {
          nextSequence = sequence + 1;
          if (opcode === 101) {
            // Two keycodes (8, 9), two keysyms each.
            const keysyms = Buffer.alloc(16);
            [0, 0, 0x61, 0x41].forEach((keysym, i) => keysyms.writeUInt32LE(keysym, 4 * i));
            socket.write(reply(sequence, 2, keysyms));
          } else if (opcode === 119) socket.write(reply(sequence, 1, Buffer.from([50, 0, 37, 0, 0, 0, 0, 0])));
          // XTEST FakeInput (opcode 132 here) has no reply; refuse the keycode with BadValue.
          else if (opcode === 132) socket.write(error(sequence, 2, 132));
          else if (opcode === 43) socket.write(reply(sequence, 0, Buffer.alloc(0)));
        }
      });
    });
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' });
    if (!opened.ok) throw new Error(opened.message);
    const connection = opened.value;
    const [mapping, modifiers] = await Promise.all([getKeyboardMapping(connection), getModifierMapping(connection)]);
    expect(mapping).toEqual({ minKeycode: 8, rows: [[0, 0], [0x61, 0x41]] });
    expect(modifiers.slice(0, 3)).toEqual([[50], [], [37]]);
    expect(await connection.sync()).toEqual([]);
    fakeKey(connection, 132, 9, true);
    expect(await connection.sync()).toMatchObject([{ code: 2, majorOpcode: 132 }]);
    // Reported once.
    expect(await connection.sync()).toEqual([]);
    connection.close();
    expect(connection.closed).toBe(true);
    await expect(getModifierMapping(connection)).rejects.toThrow(/closed/);
  });
});

describe('Xauthority', () => {
  function entry(family: number, address: string, display: string, name: string, data: number[]): Buffer {
    const field = (value: Buffer) => Buffer.concat([Buffer.from([value.length >> 8, value.length & 0xff]), value]);
    return Buffer.concat([
      Buffer.from([family >> 8, family & 0xff]),
      field(Buffer.from(address, 'latin1')),
      field(Buffer.from(display, 'latin1')),
      field(Buffer.from(name, 'latin1')),
      field(Buffer.from(data)),
    ]);
  }

  it('finds the local cookie for the display number, or a wildcard one', () => {
    const file = Buffer.concat([
      entry(256, hostname(), '0', 'MIT-MAGIC-COOKIE-1', [1, 2, 3]),
      entry(256, hostname(), '131', 'MIT-MAGIC-COOKIE-1', [4, 5, 6]),
      entry(65535, '', '7', 'MIT-MAGIC-COOKIE-1', [7, 8]),
    ]);
    const entries = parseXAuthority(file);
    expect(entries).toHaveLength(3);
    expect(cookieFor(entries, '131')?.data).toEqual(Buffer.from([4, 5, 6]));
    expect(cookieFor(entries, '7')?.data).toEqual(Buffer.from([7, 8]));
    expect(cookieFor(entries, '5')).toBeUndefined();
    expect(cookieFor(entries, '0', 'another-host')).toBeUndefined();
  });

  it('keeps the records before a truncated one', () => {
    const whole = entry(256, 'h', '1', 'MIT-MAGIC-COOKIE-1', [1]);
    expect(parseXAuthority(Buffer.concat([whole, whole.subarray(0, 7)]))).toHaveLength(1);
  });
});
