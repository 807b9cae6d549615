/**
 * Where a display's accessibility bus is. The bus must be one that belongs to that display, or a
 * snapshot would describe another screen's windows; so the places are asked in the order of how
 * surely they belong to it:
 *
 * 1. `AT_SPI_BUS_ADDRESS`: set on purpose for this process (as libatspi honours it);
 * 2. the `AT_SPI_BUS` property of the display's root window, which at-spi-bus-launcher sets on
 *    the display it was started for;
 * 3. the session bus's `org.a11y.Bus` (its `GetAddress`), asked without starting anything: on the
 *    user's display Mnemo uses the bus that is there and never launches one.
 *
 * None: a value saying so and how to have one, never an exception.
 */
import type { MessageBus } from 'dbus-next';
import { loadDbus } from './dbus';
import { X11Connection } from '../x11/connection';
import { rootTextProperty } from '../x11/windows';

export type BusSource = 'AT_SPI_BUS_ADDRESS' | 'root window' | 'session bus';

export type BusAddressResult =
  | { ok: true; address: string; source: BusSource; /** org.a11y.Status.IsEnabled, where the session bus says it. */ enabled?: boolean }
  | { ok: false; message: string; fix: string };

/** NO_AUTO_START: asking must not start at-spi-bus-launcher through activation. */
const NO_AUTO_START = 2;
const ASK_TIMEOUT_MS = 3000;

/** How to have an accessibility bus on the user's display, in one line. */
export const ENABLE_ACCESSIBILITY_FIX =
  'turn on assistive technologies (GNOME: `gsettings set org.gnome.desktop.interface toolkit-accessibility true`, then log in again), or start `/usr/libexec/at-spi-bus-launcher --launch-immediately` (Debian at-spi2-core) before the apps; start Chromium-based apps with --force-renderer-accessibility';

export async function findAccessibilityBus(env: NodeJS.ProcessEnv = process.env): Promise<BusAddressResult> {
  const explicit = env.AT_SPI_BUS_ADDRESS?.trim();
  if (explicit) return { ok: true, address: explicit, source: 'AT_SPI_BUS_ADDRESS' };
  const display = env.DISPLAY?.trim();
  if (display) {
    const fromRoot = await rootWindowAddress(display, env);
    if (fromRoot) return { ok: true, address: fromRoot, source: 'root window', ...(await sessionStatus(env)) };
  }
  const session = env.DBUS_SESSION_BUS_ADDRESS?.trim();
  if (session) {
    const asked = await askSessionBus(session);
    if (asked.address) return { ok: true, address: asked.address, source: 'session bus', ...(asked.enabled !== undefined ? { enabled: asked.enabled } : {}) };
  }
  const where = display ? `display ${display}` : 'this display (DISPLAY is not set)';
  const checked = session ? 'neither its root window (AT_SPI_BUS) nor the session bus (org.a11y.Bus) names one' : 'its root window names none (AT_SPI_BUS) and there is no session bus (DBUS_SESSION_BUS_ADDRESS)';
  return { ok: false, message: `no accessibility bus on ${where}: ${checked}; elements cannot be read, only pixels`, fix: ENABLE_ACCESSIBILITY_FIX };
}

async function rootWindowAddress(display: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const opened = await X11Connection.open(display, env, ASK_TIMEOUT_MS);
  if (!opened.ok) return undefined;
  try {
    return (await rootTextProperty(opened.value, 'AT_SPI_BUS').catch(() => undefined))?.trim() || undefined;
  } finally {
    opened.value.close();
  }
}

async function sessionStatus(env: NodeJS.ProcessEnv): Promise<{ enabled?: boolean }> {
  const session = env.DBUS_SESSION_BUS_ADDRESS?.trim();
  if (!session) return {};
  const asked = await askSessionBus(session);
  return asked.enabled !== undefined ? { enabled: asked.enabled } : {};
}

/** The session bus's accessibility bus address and whether accessibility is switched on. */
async function askSessionBus(address: string): Promise<{ address?: string; enabled?: boolean }> {
  const dbus = await loadDbus();
  let bus: MessageBus;
  try {
    bus = dbus.sessionBus({ busAddress: address });
  } catch {
    return {};
  }
  bus.on('error', () => undefined);
  const call = async (member: string, iface: string, signature = '', body: unknown[] = []): Promise<unknown[] | undefined> => {
    const message = new dbus.Message({ destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: iface, member, signature, body, flags: NO_AUTO_START });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ASK_TIMEOUT_MS)));
    try {
      const reply = await Promise.race([bus.call(message).catch(() => null), late]);
      return reply ? (reply.body as unknown[]) : undefined;
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    const [addressReply, enabledReply] = await Promise.all([
      call('GetAddress', 'org.a11y.Bus'),
      call('Get', 'org.freedesktop.DBus.Properties', 'ss', ['org.a11y.Status', 'IsEnabled']),
    ]);
    const found = typeof addressReply?.[0] === 'string' && addressReply[0] !== '' ? addressReply[0] : undefined;
    const enabled = (enabledReply?.[0] as { value?: unknown } | undefined)?.value;
    return { ...(found ? { address: found } : {}), ...(typeof enabled === 'boolean' ? { enabled } : {}) };
  } finally {
    try {
      bus.disconnect();
    } catch {
      // Already gone.
    }
  }
}
