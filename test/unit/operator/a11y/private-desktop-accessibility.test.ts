/**
 * What a private desktop needs to be read: Chromium-based apps started with the renderer's
 * accessibility flag, and the bus programs found (or what to install said).
 */
import { describe, expect, it } from 'vitest';
import { withRendererAccessibility } from '../../../../src/main/operator/private-desktop/renderer-accessibility';
import { findBusPrograms } from '../../../../src/main/operator/private-desktop/accessibility-bus';

describe('withRendererAccessibility', () => {
  it('adds the flag right after a Chromium-based program, wherever it is installed', () => {
    expect(withRendererAccessibility('chromium --kiosk https://example.org')).toBe('chromium --force-renderer-accessibility --kiosk https://example.org');
    expect(withRendererAccessibility('/usr/bin/google-chrome-stable')).toBe('/usr/bin/google-chrome-stable --force-renderer-accessibility');
    expect(withRendererAccessibility('LANG=C FOO="a b" exec brave-browser --incognito')).toBe('LANG=C FOO="a b" exec brave-browser --force-renderer-accessibility --incognito');
  });

  it('leaves other programs, and a command that has the flag, as they are', () => {
    expect(withRendererAccessibility('xterm -e chromium')).toBe('xterm -e chromium');
    expect(withRendererAccessibility('firefox https://example.org')).toBe('firefox https://example.org');
    expect(withRendererAccessibility('chromium --force-renderer-accessibility')).toBe('chromium --force-renderer-accessibility');
  });
});

describe('findBusPrograms', () => {
  it('finds dbus-daemon and at-spi-bus-launcher', () => {
    const installed = new Set(['dbus-daemon', '/usr/libexec/at-spi-bus-launcher']);
    const found = findBusPrograms({}, (path) => (installed.has(path) ? path : undefined));
    expect(found).toEqual({ ok: true, programs: { dbusDaemon: 'dbus-daemon', launcher: '/usr/libexec/at-spi-bus-launcher' } });
  });

  it('names the Debian packages of what is missing', () => {
    const found = findBusPrograms({}, () => undefined);
    expect(found).toMatchObject({ ok: false, message: expect.stringMatching(/dbus-daemon \(Debian dbus-daemon\) and at-spi-bus-launcher \(Debian at-spi2-core\) are not installed/) });
  });
});
