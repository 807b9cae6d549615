/**
 * The connection setup shared by the display hold and the keyboard, against scripted X servers:
 * each way a setup can end is its own value (unreachable, refused, dropped, no answer), only an
 * unreachable address moves on to the next, and a success hands over the socket with what the
 * server sent after its reply.
 */
import { describe, expect, it } from 'vitest';
import { addressesOf, parseDisplayName, type XAddress } from '../../../src/main/operator/x11/display-name';
import { keycodeRange, openX } from '../../../src/main/operator/x11/setup';
import { authOf, refusal, scriptedXServers, setupReply } from '../../fixtures/x11/scripted-server';

const servers = scriptedXServers();

const NOWHERE: XAddress = { path: '/nonexistent/.X11-unix/X0' };
const addressOf = (display: string) => addressesOf(parseDisplayName(display)!)[0]!;

describe('openX', () => {
  it('moves on from an unreachable address; a server that answers ends the search', async () => {
    const refusing = await servers.start((socket) => socket.end(refusal('No protocol specified')));
    const accepting = await servers.start((socket) => socket.write(setupReply()));
    const opened = await openX([NOWHERE, addressOf(accepting.display)], undefined, 2000);
    expect(opened.ok).toBe(true);
    if (opened.ok) opened.socket.destroy();
    const refused = await openX([addressOf(refusing.display), addressOf(accepting.display)], undefined, 2000);
    expect(refused).toEqual({ ok: false, kind: 'refused', reason: 'No protocol specified' });
    expect(accepting.sockets).toHaveLength(1);
    expect(await openX([NOWHERE], undefined, 2000)).toMatchObject({ ok: false, kind: 'unreachable' });
  });

  it('a refusal without a reason says so', async () => {
    const { display } = await servers.start((socket) => socket.end(refusal('')));
    expect(await openX([addressOf(display)], undefined, 2000)).toEqual({ ok: false, kind: 'refused', reason: 'no reason given' });
  });

  it('a server that hangs up during the setup is "dropped" at once, not after the timeout', async () => {
    const { display } = await servers.start((socket) => socket.destroy());
    const started = Date.now();
    expect(await openX([addressOf(display)], undefined, 120_000)).toMatchObject({ ok: false, kind: 'dropped' });
    // Half the timeout it was given: it did not wait for the timeout.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('a server that never answers is "no_answer" after the timeout', async () => {
    const { display } = await servers.start(() => undefined);
    expect(await openX([addressOf(display)], undefined, 200)).toEqual({ ok: false, kind: 'no_answer', reason: 'no answer within 200 ms to the connection setup' });
  });

  it('sends the cookie, and hands over the reply, what came after it and a socket without listeners', async () => {
    const cookie = { name: 'MIT-MAGIC-COOKIE-1', data: Buffer.from('0123456789abcdef') };
    let received: { name: string; data: Buffer } | undefined;
    const { display } = await servers.start((socket, setup) => {
      received = authOf(setup);
      // An event right behind the reply, in the same packet.
      socket.write(Buffer.concat([setupReply(8, 255), Buffer.alloc(32, 7)]));
    });
    const opened = await openX([addressOf(display)], cookie, 2000);
    if (!opened.ok) throw new Error(opened.reason);
    expect(received).toEqual(cookie);
    expect(keycodeRange(opened.reply)).toEqual({ minKeycode: 8, maxKeycode: 255 });
    expect(opened.leftover).toEqual(Buffer.alloc(32, 7));
    expect(opened.socket.listenerCount('data') + opened.socket.listenerCount('error')).toBe(0);
    opened.socket.destroy();
  });

  it('a success reply too short for the keycode range has none', () => {
    expect(keycodeRange(Buffer.from([1, 0, 11, 0, 0, 0, 0, 0]))).toBeUndefined();
  });
});
