/**
 * An element reader for one display: its accessibility bus found (bus-address.ts) and connected.
 * The environment says which display and which buses (DISPLAY, DBUS_SESSION_BUS_ADDRESS,
 * AT_SPI_BUS_ADDRESS): the user's own, or a private desktop's (desktopEnvironment gives those).
 */
import { AtspiClient } from './atspi-client';
import { findAccessibilityBus, type BusSource } from './bus-address';
import { ElementReader } from './snapshot';

export interface OpenReader {
  reader: ElementReader;
  bus: { address: string; source: BusSource; enabled?: boolean };
  close(): void;
}

export type ReaderOpening = { ok: true; opened: OpenReader } | { ok: false; kind: 'no_bus'; message: string; fix: string };

export async function openElementReader(env: NodeJS.ProcessEnv = process.env): Promise<ReaderOpening> {
  const found = await findAccessibilityBus(env);
  if (!found.ok) return { ok: false, kind: 'no_bus', message: found.message, fix: found.fix };
  const connected = await AtspiClient.connect(found.address);
  if (!connected.ok) return { ok: false, kind: 'no_bus', message: `${connected.message} (found through the ${found.source})`, fix: 'start the accessibility bus again (log in again, or restart at-spi-bus-launcher), then the apps' };
  const client = connected.client;
  return {
    ok: true,
    opened: {
      reader: new ElementReader(client, env.DISPLAY?.trim() || '(no DISPLAY)'),
      bus: { address: found.address, source: found.source, ...(found.enabled !== undefined ? { enabled: found.enabled } : {}) },
      close: () => client.close(),
    },
  };
}

export type AccessibilityProbe =
  | { ok: true; detail: string; /** Accessibility is switched off (org.a11y.Status.IsEnabled): apps may not join the bus. */ disabled: boolean }
  | { ok: false; message: string; fix: string };

/** For `mnemo doctor`: is there an accessibility bus here, and do applications answer on it. */
export async function probeAccessibility(env: NodeJS.ProcessEnv = process.env): Promise<AccessibilityProbe> {
  const opening = await openElementReader(env);
  if (!opening.ok) return { ok: false, message: opening.message, fix: opening.fix };
  const { bus } = opening.opened;
  try {
    const apps = (await opening.opened.reader.applicationCount()) ?? 0;
    const disabled = bus.enabled === false;
    return {
      ok: true,
      disabled,
      detail: `the accessibility bus answers (found through the ${bus.source}): ${apps} application${apps === 1 ? '' : 's'} on it${disabled ? '; accessibility is switched off (org.a11y.Status IsEnabled false)' : ''}`,
    };
  } finally {
    opening.opened.close();
  }
}
