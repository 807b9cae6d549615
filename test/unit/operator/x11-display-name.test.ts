/**
 * DISPLAY names and the addresses they stand for, in the order Xlib tries them: the display hold
 * and the keyboard's connection must reach the server libnut opens.
 */
import { describe, expect, it } from 'vitest';
import { addressesOf, parseDisplayName } from '../../../src/main/operator/x11/display-name';

describe('parseDisplayName', () => {
  it('reads the X11 forms', () => {
    expect(parseDisplayName(':0')).toEqual({ host: '', number: 0 });
    expect(parseDisplayName(':99.0')).toEqual({ host: '', number: 99 });
    expect(parseDisplayName('unix:0.0')).toEqual({ host: 'unix', number: 0 });
    expect(parseDisplayName('localhost:10.0')).toEqual({ host: 'localhost', number: 10 });
    expect(parseDisplayName('nonsense')).toBeUndefined();
  });
});

describe('addressesOf', () => {
  const addresses = (display: string, platform: NodeJS.Platform = 'linux') => addressesOf(parseDisplayName(display)!, platform);

  it(':N is the unix socket, the abstract one on Linux, then TCP on this machine', () => {
    expect(addresses(':131')).toEqual([{ path: '/tmp/.X11-unix/X131' }, { path: '\0/tmp/.X11-unix/X131' }, { host: '127.0.0.1', port: 6131 }]);
    expect(addresses(':131', 'freebsd')).toEqual([{ path: '/tmp/.X11-unix/X131' }, { host: '127.0.0.1', port: 6131 }]);
  });
  it('unix:N never falls back to TCP', () => {
    expect(addresses('unix:0.0')).toEqual([{ path: '/tmp/.X11-unix/X0' }, { path: '\0/tmp/.X11-unix/X0' }]);
  });
  it('host:N is TCP port 6000+N', () => {
    expect(addresses('localhost:10.0')).toEqual([{ host: 'localhost', port: 6010 }]);
  });
  it("XQuartz's launchd socket path", () => {
    expect(addresses('/private/tmp/com.apple.launchd.AbC/org.xquartz:0', 'darwin')).toEqual([{ path: '/private/tmp/com.apple.launchd.AbC/org.xquartz:0' }]);
  });
});
