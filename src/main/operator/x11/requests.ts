/**
 * The few X requests the keyboard needs, encoded and decoded: the core keyboard and modifier
 * mappings, the XKB state (active group, locked modifiers) and XTEST key events; and the atoms
 * that the windows (windows.ts) and the clipboard owner (selection.ts) name things with.
 */
import { nameBody, packRequest, type X11Connection } from './connection';

const INTERN_ATOM = 16;
const QUERY_EXTENSION = 98;
const GET_KEYBOARD_MAPPING = 101;
const GET_MODIFIER_MAPPING = 119;
const XKB_USE_EXTENSION = 0;
const XKB_GET_STATE = 4;
const XKB_USE_CORE_KBD = 0x0100;
const XTEST_FAKE_INPUT = 2;
const KEY_PRESS = 2;
const KEY_RELEASE = 3;

export interface CoreKeyboardMapping {
  minKeycode: number;
  /** rows[i] holds the keysyms of keycode minKeycode + i, in the core column order. */
  rows: number[][];
}

export interface XkbState {
  /** The effective group, 0-3. */
  group: number;
  /** Effective modifier mask (Shift 0x01, Lock 0x02, Control 0x04, Mod1-5 0x08-0x80). */
  mods: number;
}

/** The major opcode of an extension, or undefined when the server lacks it. */
export async function queryExtension(connection: X11Connection, name: string): Promise<number | undefined> {
  const reply = await connection.request(packRequest(QUERY_EXTENSION, 0, nameBody(name)));
  return reply.readUInt8(8) ? reply.readUInt8(9) : undefined;
}

/** The atom of `name`; with `onlyIfExists`, 0 (None) when no client has made it yet. */
export async function internAtom(connection: X11Connection, name: string, onlyIfExists = true): Promise<number> {
  const reply = await connection.request(packRequest(INTERN_ATOM, onlyIfExists ? 1 : 0, nameBody(name)));
  return reply.readUInt32LE(8);
}

export async function getKeyboardMapping(connection: X11Connection): Promise<CoreKeyboardMapping> {
  const { minKeycode, maxKeycode } = connection.setup;
  const count = maxKeycode - minKeycode + 1;
  const body = Buffer.alloc(4);
  body.writeUInt8(minKeycode, 0);
  body.writeUInt8(count, 1);
  const reply = await connection.request(packRequest(GET_KEYBOARD_MAPPING, 0, body));
  const perKeycode = reply.readUInt8(1);
  const rows: number[][] = [];
  for (let key = 0; key < count; key++) {
    const row: number[] = [];
    for (let column = 0; column < perKeycode; column++) row.push(reply.readUInt32LE(32 + 4 * (key * perKeycode + column)));
    rows.push(row);
  }
  return { minKeycode, rows };
}

/** Eight rows (Shift, Lock, Control, Mod1-Mod5) of the keycodes that set each modifier. */
export async function getModifierMapping(connection: X11Connection): Promise<number[][]> {
  const reply = await connection.request(packRequest(GET_MODIFIER_MAPPING, 0));
  const perModifier = reply.readUInt8(1);
  const rows: number[][] = [];
  for (let modifier = 0; modifier < 8; modifier++) {
    const row: number[] = [];
    for (let i = 0; i < perModifier; i++) {
      const keycode = reply.readUInt8(32 + modifier * perModifier + i);
      if (keycode !== 0) row.push(keycode);
    }
    rows.push(row);
  }
  return rows;
}

/** XKB must be announced once per connection before any other XKB request. */
export async function useXkb(connection: X11Connection, opcode: number): Promise<boolean> {
  const body = Buffer.alloc(4);
  body.writeUInt16LE(1, 0);
  body.writeUInt16LE(0, 2);
  const reply = await connection.request(packRequest(opcode, XKB_USE_EXTENSION, body));
  return reply.readUInt8(1) !== 0;
}

export async function getXkbState(connection: X11Connection, opcode: number): Promise<XkbState> {
  const body = Buffer.alloc(4);
  body.writeUInt16LE(XKB_USE_CORE_KBD, 0);
  const reply = await connection.request(packRequest(opcode, XKB_GET_STATE, body));
  return { mods: reply.readUInt8(8), group: reply.readUInt8(12) };
}

/** One XTEST key event (no reply: errors come with the next sync). */
export function fakeKey(connection: X11Connection, opcode: number, keycode: number, press: boolean): void {
  const body = Buffer.alloc(32);
  body.writeUInt8(press ? KEY_PRESS : KEY_RELEASE, 0);
  body.writeUInt8(keycode, 1);
  // time 0 (no delay), root None: both ignored for key events.
  connection.send(packRequest(opcode, XTEST_FAKE_INPUT, body));
}
