/**
 * A private desktop's own buses, so its applications can be read as elements (AT-SPI) and never
 * mix with the user's: a D-Bus session bus (dbus-daemon with a configuration of its own, whose
 * only service folder is empty: nothing of the user's session is started on it by activation),
 * then the accessibility bus on it (at-spi-bus-launcher from Debian's at-spi2-core, accessibility
 * switched on). Both must be up before the apps start: an app joins the accessibility bus only
 * when it finds one at its start.
 *
 * Their sockets live in a runtime folder of the desktop's own (its XDG_RUNTIME_DIR), short enough
 * for a socket's path, removed with the desktop.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findOnPath } from './processes';

export const SESSION_BUS_PROGRAM = 'dbus-daemon';
export const LAUNCHER_CANDIDATES = ['/usr/libexec/at-spi-bus-launcher', '/usr/lib/at-spi2-core/at-spi-bus-launcher', '/usr/lib/at-spi-bus-launcher'];

export interface BusPrograms {
  dbusDaemon: string;
  launcher: string;
}

/** The programs the buses need, or what to install when one is missing. */
export function findBusPrograms(env: NodeJS.ProcessEnv, exists: (path: string) => string | undefined = (path) => findOnPath(path, env)): { ok: true; programs: BusPrograms } | { ok: false; message: string } {
  const dbusDaemon = exists(SESSION_BUS_PROGRAM);
  const launcher = LAUNCHER_CANDIDATES.map((path) => exists(path)).find((found) => found !== undefined);
  const missing = [!dbusDaemon && 'dbus-daemon (Debian dbus-daemon)', !launcher && 'at-spi-bus-launcher (Debian at-spi2-core)'].filter((item): item is string => typeof item === 'string');
  if (!dbusDaemon || !launcher) return { ok: false, message: `the desktop has no accessibility bus (elements cannot be read there, only pixels): ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not installed` };
  return { ok: true, programs: { dbusDaemon, launcher } };
}

/**
 * A session bus's configuration: listening at `address`, anyone on it may talk to anyone (it is
 * private to one desktop or one test); `serviceDir` (an empty folder) keeps it from activating the
 * machine's services.
 */
export const sessionBusConfig = (address: string, serviceDir?: string) => `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>${address}</listen>
${serviceDir !== undefined ? `  <servicedir>${serviceDir}</servicedir>\n` : ''}  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;

export interface PreparedBuses {
  /** The session bus's address: every program of the desktop is given it. */
  address: string;
  /** The socket dbus-daemon creates at that address (there once it listens). */
  socket: string;
  /** The shell commands to start, in order. */
  sessionBusCommand: string;
  launcherCommand: string;
}

/** Writes the session bus's configuration into the desktop's runtime folder; what to start. */
export async function prepareBuses(runtimeDir: string, programs: BusPrograms): Promise<PreparedBuses> {
  const serviceDir = join(runtimeDir, 'services');
  await mkdir(serviceDir, { recursive: true, mode: 0o700 });
  const socket = join(runtimeDir, 'bus');
  const address = `unix:path=${socket}`;
  const config = join(runtimeDir, 'session-bus.conf');
  await writeFile(config, sessionBusConfig(address, serviceDir), { mode: 0o600 });
  return {
    address,
    socket,
    sessionBusCommand: `exec ${quote(programs.dbusDaemon)} --nofork --nopidfile --config-file=${quote(config)}`,
    launcherCommand: `exec ${quote(programs.launcher)} --a11y=1 --launch-immediately`,
  };
}

/** What the desktop's programs are told once its buses are up. */
export function busEnvironment(address: string, runtimeDir: string): NodeJS.ProcessEnv {
  return {
    DBUS_SESSION_BUS_ADDRESS: address,
    XDG_RUNTIME_DIR: runtimeDir,
    // Toolkits that join the accessibility bus only when told to: Chromium and Electron (ATK), Qt.
    ACCESSIBILITY_ENABLED: '1',
    QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
  };
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
