/**
 * What a private desktop needs to know of its windows, in plain X requests: which top-level
 * windows are showing (an app's window is up when a new one appears), and whether a window
 * manager has taken the screen (it sets `_NET_SUPPORTING_WM_CHECK` on the root).
 */
import { packRequest, uint32Body, type X11Connection } from './connection';
import { internAtom } from './requests';

const GET_WINDOW_ATTRIBUTES = 3;
const QUERY_TREE = 15;
const GET_PROPERTY = 20;
const MAP_STATE_VIEWABLE = 2;

function rootOf(connection: X11Connection): number {
  const root = connection.screen?.root;
  if (root === undefined) throw new Error('the X server described no screen');
  return root;
}

/** The children of a window, bottom to top. */
export async function childrenOf(connection: X11Connection, window: number): Promise<number[]> {
  const reply = await connection.request(packRequest(QUERY_TREE, 0, uint32Body(window)));
  const count = reply.readUInt16LE(16);
  const children: number[] = [];
  for (let i = 0; i < count; i++) children.push(reply.readUInt32LE(32 + 4 * i));
  return children;
}

/** Whether a window is viewable and managed (not override-redirect: menus, tooltips); false when it is gone. */
async function showsAsTopLevel(connection: X11Connection, window: number): Promise<boolean> {
  try {
    const reply = await connection.request(packRequest(GET_WINDOW_ATTRIBUTES, 0, uint32Body(window)));
    return reply.readUInt8(26) === MAP_STATE_VIEWABLE && reply.readUInt8(27) === 0;
  } catch {
    // Destroyed between the tree and this request.
    return false;
  }
}

/**
 * The viewable top-level windows: the root's children that are mapped and not override-redirect.
 * Under a reparenting window manager these are the frames around the apps' windows.
 */
export async function topLevelWindows(connection: X11Connection): Promise<number[]> {
  const children = await childrenOf(connection, rootOf(connection));
  const shown = await Promise.all(children.map((window) => showsAsTopLevel(connection, window)));
  return children.filter((_, index) => shown[index]);
}

/** Whether a window manager runs on the screen (EWMH: the root names its check window). */
export async function windowManagerRunning(connection: X11Connection): Promise<boolean> {
  const atom = await internAtom(connection, '_NET_SUPPORTING_WM_CHECK');
  if (atom === 0) return false;
  const reply = await rootProperty(connection, atom, 1);
  return reply.readUInt32LE(16) > 0;
}

/** GetProperty of the root window, of any type, up to `lengthUnits` 4-byte units: the raw reply. */
function rootProperty(connection: X11Connection, atom: number, lengthUnits: number): Promise<Buffer> {
  const body = Buffer.alloc(20);
  body.writeUInt32LE(rootOf(connection), 0);
  body.writeUInt32LE(atom, 4);
  body.writeUInt32LE(0, 8); // any type
  body.writeUInt32LE(0, 12);
  body.writeUInt32LE(lengthUnits, 16);
  return connection.request(packRequest(GET_PROPERTY, 0, body));
}

/** A text property of the root window (e.g. at-spi's `AT_SPI_BUS`), or undefined when it is not set. */
export async function rootTextProperty(connection: X11Connection, name: string): Promise<string | undefined> {
  const atom = await internAtom(connection, name);
  if (atom === 0) return undefined;
  // 4096 units: far more than a bus address.
  const reply = await rootProperty(connection, atom, 4096);
  const format = reply.readUInt8(1);
  const length = reply.readUInt32LE(16);
  if (format !== 8 || length === 0) return undefined;
  return reply.subarray(32, 32 + length).toString('utf8');
}
