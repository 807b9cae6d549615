/**
 * The display check and hold against scripted X servers on 127.0.0.1 (a display "127.0.0.1:N" is
 * TCP port 6000+N): it names what is wrong, waits out a server that hangs up (as one resetting
 * does), sends the Xauthority cookie, and keeps its connection until released.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDisplay, displayListening, holdDisplay, parseDisplayName } from '../../../src/main/operator/display-check';

let server: Server | undefined;
const sockets: Socket[] = [];
const scratch: string[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A server that gives each client's setup request to `answer` (with the client's number, from 1). */
async function scriptedServer(answer: (socket: Socket, setup: Buffer, client: number) => void): Promise<string> {
  let clients = 0;
  server = createServer((socket) => {
    sockets.push(socket);
    const client = ++clients;
    socket.once('data', (setup) => answer(socket, setup, client));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as { port: number }).port - 6000}`;
}

/** A success reply with no additional data worth reading (the hold reads none of it). */
const SUCCESS = Buffer.from([1, 0, 11, 0, 0, 0, 0, 0]);

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

/** The authorisation name and data of a setup request (little-endian, as the hold sends it). */
function authOf(setup: Buffer): { name: string; data: Buffer } {
  const nameLength = setup.readUInt16LE(6);
  const dataLength = setup.readUInt16LE(8);
  const dataAt = 12 + Math.ceil(nameLength / 4) * 4;
  return { name: setup.subarray(12, 12 + nameLength).toString('latin1'), data: setup.subarray(dataAt, dataAt + dataLength) };
}

/** An Xauthority file with one FamilyWild entry for display `number`. */
function xauthority(number: string, cookie: Buffer): string {
  const field = (value: Buffer) => Buffer.concat([Buffer.from([value.length >> 8, value.length & 0xff]), value]);
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-xauth-'));
  scratch.push(dir);
  const path = join(dir, 'Xauthority');
  writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xff]), field(Buffer.alloc(0)), field(Buffer.from(number)), field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(cookie)]));
  return path;
}

describe('parseDisplayName', () => {
  it('reads the X11 forms', () => {
    expect(parseDisplayName(':0')).toEqual({ host: '', number: 0 });
    expect(parseDisplayName(':99.0')).toEqual({ host: '', number: 99 });
    expect(parseDisplayName('localhost:10.0')).toEqual({ host: 'localhost', number: 10 });
    expect(parseDisplayName('nonsense')).toBeNull();
  });
});

describe('checkDisplay', () => {
  it('names DISPLAY when it is not set', async () => {
    const check = await checkDisplay({}, 'linux');
    expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/DISPLAY environment variable is not set/) });
  });
  it('names the display nobody answers on, and how to start one', async () => {
    const check = await checkDisplay({ DISPLAY: ':93' }, 'linux', 500);
    expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/cannot connect to the X server at DISPLAY=:93\. Is it running\? .*Xvfb :93/) });
  });
  it('rejects a malformed DISPLAY', async () => {
    const check = await checkDisplay({ DISPLAY: 'garbage' }, 'linux');
    expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/not a valid X display name/) });
  });
  it('passes a server that accepts the connection', async () => {
    const display = await scriptedServer((socket) => socket.write(SUCCESS));
    expect(await checkDisplay({ DISPLAY: display }, 'linux')).toEqual({ ok: true, display });
  });
  it('reports a refusal with the server’s reason and what to check', async () => {
    const display = await scriptedServer((socket) => socket.end(refusal('Authorization required, but no authorization protocol specified')));
    const check = await checkDisplay({ DISPLAY: display }, 'linux');
    expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/DISPLAY=127\.0\.0\.1:\d+ refused the connection \(Authorization required.*\)\. Check access to it \(XAUTHORITY, xhost\)/) });
  });
  it('does not check on macOS and Windows', async () => {
    expect(await checkDisplay({}, 'darwin')).toEqual({ ok: true, display: null });
    expect(await checkDisplay({}, 'win32')).toEqual({ ok: true, display: null });
  });
});

describe('holdDisplay', () => {
  it('waits out a server that hangs up during the setup, as one resetting does', async () => {
    // The first two clients are cut off, as an X server does with clients that connect while it resets.
    const display = await scriptedServer((socket, _setup, client) => (client <= 2 ? socket.destroy() : socket.write(SUCCESS)));
    const hold = await holdDisplay({ DISPLAY: display }, 'linux');
    expect(hold.ok).toBe(true);
    if (hold.ok) hold.release();
  });
  it('gives up on a server that keeps hanging up, naming the display', async () => {
    const display = await scriptedServer((socket) => socket.destroy());
    const hold = await holdDisplay({ DISPLAY: display }, 'linux', { resetWaitMs: 300 });
    expect(hold).toMatchObject({ ok: false, message: expect.stringMatching(/DISPLAY=127\.0\.0\.1:\d+ answers, but it cannot be opened \(it hung up during the connection setup/) });
  });
  it('keeps its connection open until released, and says when the server closes it', async () => {
    const display = await scriptedServer((socket) => socket.write(SUCCESS));
    const hold = await holdDisplay({ DISPLAY: display }, 'linux');
    if (!hold.ok) throw new Error(hold.message);
    const [serverSide] = sockets;
    expect(serverSide?.destroyed).toBe(false);
    serverSide?.destroy();
    await hold.lost; // the server went away: the hold knows at once
    const second = await holdDisplay({ DISPLAY: display }, 'linux');
    if (!second.ok) throw new Error(second.message);
    const closed = new Promise((resolve) => sockets[1]?.once('close', resolve));
    second.release();
    await closed;
  });
  it('sends the Xauthority cookie for the display', async () => {
    const cookie = Buffer.from('0123456789abcdef');
    let received: { name: string; data: Buffer } | undefined;
    const display = await scriptedServer((socket, setup) => {
      received = authOf(setup);
      socket.write(received.data.equals(cookie) ? SUCCESS : refusal('wrong cookie'));
    });
    const hold = await holdDisplay({ DISPLAY: display, XAUTHORITY: xauthority(display.split(':')[1] as string, cookie) }, 'linux');
    expect(hold.ok).toBe(true);
    if (hold.ok) hold.release();
    expect(received?.name).toBe('MIT-MAGIC-COOKIE-1');
  });
});

describe('displayListening', () => {
  it('tells a listening display from a gone one without an X setup', async () => {
    let setups = 0;
    const display = await scriptedServer(() => setups++);
    expect(await displayListening({ DISPLAY: display }, 'linux')).toBe(true);
    expect(await displayListening({ DISPLAY: ':93' }, 'linux', 500)).toBe(false);
    expect(await displayListening({}, 'linux')).toBe(false);
    // No setup request was sent: a bare X server would not count it as a client.
    expect(setups).toBe(0);
  });
});
