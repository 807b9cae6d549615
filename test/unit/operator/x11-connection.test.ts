/**
 * The X11 client against a scripted server on 127.0.0.1 (a display "127.0.0.1:N" is TCP port
 * 6000+N): the handshake's answers, replies matched to requests, the errors of requests without
 * replies reported by sync(), and an Xauthority file read as Xlib reads it.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cookieFor, parseXAuthority } from '../../../src/main/operator/x11/auth';
import { packRequest, X11Connection } from '../../../src/main/operator/x11/connection';
import { fakeKey, getKeyboardMapping, getModifierMapping } from '../../../src/main/operator/x11/requests';
import { authOf, refusal, reply, requestsIn, scriptedXServers, setupReply, xError } from '../../fixtures/x11/scripted-server';
import { FAMILY_LOCAL, FAMILY_WILD, MIT_MAGIC_COOKIE, xauthorityFiles, xauthorityRecord } from '../../fixtures/x11/xauthority';

const servers = scriptedXServers();
const xauthority = xauthorityFiles();

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
    const { display } = await servers.start((socket, request) => {
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
    const { display } = await servers.start((socket) => socket.end(refusal('No protocol specified')));
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' });
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining('No protocol specified') });
  });

  it('a server that never answers the setup is a message, not a hang', async () => {
    const { display } = await servers.start(() => undefined);
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' }, 200);
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining('no answer within 200 ms') });
  });

  it('a server that hangs up during the setup is a message at once, not after the timeout', async () => {
    const { display } = await servers.start((socket) => socket.destroy());
    const started = Date.now();
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' }, 120_000);
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining(`cannot open display ${display}`) });
    // Half the timeout it was given: it did not wait for the timeout.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('sends the Xauthority cookie for the display', async () => {
    const cookie = Buffer.from('fedcba9876543210');
    const { display } = await servers.start((socket, setup) => socket.end(authOf(setup).data.equals(cookie) ? setupReply() : refusal('wrong cookie')));
    const opened = await X11Connection.open(display, { XAUTHORITY: xauthority.write(display.split(':')[1] as string, cookie) });
    if (!opened.ok) throw new Error(opened.message);
    opened.value.close();
  });

  it('a setup reply too short for the keycode range is a message', async () => {
    const { display } = await servers.start((socket) => socket.write(Buffer.from([1, 0, 11, 0, 0, 0, 0, 0])));
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' });
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining('too short to hold the keycode range') });
  });

  it('nothing listening is a message naming the display', async () => {
    const opened = await X11Connection.open('127.0.0.1:59000', { XAUTHORITY: '/nonexistent' }, 1000);
    expect(opened).toMatchObject({ ok: false, message: expect.stringContaining('cannot open display 127.0.0.1:59000') });
  });

  it('matches replies to requests, and sync() reports the errors of requests without replies', async () => {
    const { display } = await servers.start((socket) => {
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
          else if (opcode === 132) socket.write(xError(sequence, 2, 132));
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
  const entry = (family: number, address: string, display: string, name: string, data: number[]) => xauthorityRecord(family, address, display, name, Buffer.from(data));

  it('finds the local cookie for the display number, or a wildcard one', () => {
    const file = Buffer.concat([
      entry(FAMILY_LOCAL, hostname(), '0', MIT_MAGIC_COOKIE, [1, 2, 3]),
      entry(FAMILY_LOCAL, hostname(), '131', MIT_MAGIC_COOKIE, [4, 5, 6]),
      entry(FAMILY_WILD, '', '7', MIT_MAGIC_COOKIE, [7, 8]),
    ]);
    const entries = parseXAuthority(file);
    expect(entries).toHaveLength(3);
    expect(cookieFor(entries, '131')?.data).toEqual(Buffer.from([4, 5, 6]));
    expect(cookieFor(entries, '7')?.data).toEqual(Buffer.from([7, 8]));
    expect(cookieFor(entries, '5')).toBeUndefined();
    expect(cookieFor(entries, '0', 'another-host')).toBeUndefined();
  });

  it('keeps the records before a truncated one', () => {
    const whole = entry(FAMILY_LOCAL, 'h', '1', MIT_MAGIC_COOKIE, [1]);
    expect(parseXAuthority(Buffer.concat([whole, whole.subarray(0, 7)]))).toHaveLength(1);
  });
});
