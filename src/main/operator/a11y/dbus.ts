/**
 * dbus-next, loaded at the first call on a bus. It brings an XML parser and some seventy modules,
 * which cost a command about 40 ms of CPU to load; a run without the elements aid never reads an
 * accessibility tree, so it starts without them.
 */
import type dbus from 'dbus-next';

export type DBus = typeof dbus;

let loading: Promise<DBus> | undefined;

export const loadDbus = (): Promise<DBus> => (loading ??= import('dbus-next').then((loaded) => loaded.default));
