/**
 * The display check and hold against scripted X servers on 127.0.0.1 (a display "127.0.0.1:N" is
 * TCP port 6000+N): it names what is wrong, waits out a server that hangs up (as one resetting
 * does), sends the Xauthority cookie, and keeps its connection until released.
 */
import { describe, expect, it } from 'vitest';
import { checkDisplay, displayListening, holdDisplay } from '../../../src/main/operator/display-check';
import { authOf, refusal, scriptedXServers, setupReply } from '../../fixtures/x11/scripted-server';
import { xauthorityFiles } from '../../fixtures/x11/xauthority';

const servers = scriptedXServers();
const xauthority = xauthorityFiles();

const SUCCESS = setupReply();

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
    const { display } = await servers.start((socket) => socket.write(SUCCESS));
    expect(await checkDisplay({ DISPLAY: display }, 'linux')).toEqual({ ok: true, display });
  });
  it('reports a refusal with the server’s reason and what to check', async () => {
    const { display } = await servers.start((socket) => socket.end(refusal('Authorization required, but no authorization protocol specified')));
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
    const { display } = await servers.start((socket, _setup, client) => (client <= 2 ? socket.destroy() : socket.write(SUCCESS)));
    const hold = await holdDisplay({ DISPLAY: display }, 'linux');
    expect(hold.ok).toBe(true);
    if (hold.ok) hold.release();
  });
  it('gives up on a server that keeps hanging up, naming the display', async () => {
    const { display } = await servers.start((socket) => socket.destroy());
    const hold = await holdDisplay({ DISPLAY: display }, 'linux', { resetWaitMs: 300 });
    expect(hold).toMatchObject({ ok: false, message: expect.stringMatching(/DISPLAY=127\.0\.0\.1:\d+ answers, but it cannot be opened \(it hung up during the connection setup/) });
  });
  it('keeps its connection open until released, and says when the server closes it', async () => {
    const { display, sockets } = await servers.start((socket) => socket.write(SUCCESS));
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
    const { display } = await servers.start((socket, setup) => {
      received = authOf(setup);
      socket.write(received.data.equals(cookie) ? SUCCESS : refusal('wrong cookie'));
    });
    const hold = await holdDisplay({ DISPLAY: display, XAUTHORITY: xauthority.write(display.split(':')[1] as string, cookie) }, 'linux');
    expect(hold.ok).toBe(true);
    if (hold.ok) hold.release();
    expect(received?.name).toBe('MIT-MAGIC-COOKIE-1');
  });
});

describe('displayListening', () => {
  it('tells a listening display from a gone one without an X setup', async () => {
    let setups = 0;
    const { display } = await servers.start(() => setups++);
    expect(await displayListening({ DISPLAY: display }, 'linux')).toBe(true);
    expect(await displayListening({ DISPLAY: ':93' }, 'linux', 500)).toBe(false);
    expect(await displayListening({}, 'linux')).toBe(false);
    // No setup request was sent: a bare X server would not count it as a client.
    expect(setups).toBe(0);
  });
});
