import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDisplay, parseDisplayName } from '../../../src/main/operator/display-check';

describe('parseDisplayName', () => {
  it('reads the X11 forms', () => {
    expect(parseDisplayName(':0')).toEqual({ host: '', number: 0 });
    expect(parseDisplayName(':99.0')).toEqual({ host: '', number: 99 });
    expect(parseDisplayName('localhost:10.0')).toEqual({ host: 'localhost', number: 10 });
    expect(parseDisplayName('nonsense')).toBeNull();
  });
});

describe('checkDisplay', () => {
  let server: Server;
  beforeAll(async () => {
    // A TCP listener on 6000+N stands in for an X server accepting connections.
    server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(6000 + 77, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('names DISPLAY when it is not set', async () => {
    const check = await checkDisplay({}, 'linux');
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(/DISPLAY environment variable is not set/);
  });
  it('names the display nobody answers on', async () => {
    const check = await checkDisplay({ DISPLAY: ':93' }, 'linux', 500);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(/DISPLAY=:93/);
  });
  it('rejects a malformed DISPLAY', async () => {
    const check = await checkDisplay({ DISPLAY: 'garbage' }, 'linux');
    expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/not a valid X display name/) });
  });
  it('refuses a display whose socket answers but which cannot be opened, without crashing', async () => {
    // The listener accepts and hangs up: no X server behind it. Opening it would crash libnut.
    const check = await checkDisplay({ DISPLAY: '127.0.0.1:77' }, 'linux');
    expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/DISPLAY=127\.0\.0\.1:77 answers, but it cannot be opened/) });
  });
  it('does not check on macOS and Windows', async () => {
    expect(await checkDisplay({}, 'darwin')).toEqual({ ok: true, display: null });
    expect(await checkDisplay({}, 'win32')).toEqual({ ok: true, display: null });
  });
});
