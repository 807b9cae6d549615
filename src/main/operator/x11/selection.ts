/**
 * The X requests and events of owning a selection, encoded and decoded, and the answer an owner
 * of text gives to each request (ICCCM section 2): just what the clipboard owner
 * (clipboard-owner.ts) needs, little-endian like the rest of this client.
 */
import { packRequest, uint32Body, type X11Connection } from './connection';

const CREATE_WINDOW = 1;
const CHANGE_PROPERTY = 18;
const SET_SELECTION_OWNER = 22;
const GET_SELECTION_OWNER = 23;
const SEND_EVENT = 25;

export const NONE = 0;
/** Predefined atoms (the core protocol's fixed numbers). */
export const ATOM_ATOM = 4;
export const ATOM_INTEGER = 19;
export const ATOM_STRING = 31;

export const PROPERTY_NOTIFY = 28;
export const SELECTION_CLEAR = 29;
export const SELECTION_REQUEST = 30;
export const SELECTION_NOTIFY = 31;

const INPUT_ONLY = 2;
const CW_EVENT_MASK = 0x800;
const PROPERTY_CHANGE_MASK = 0x400000;
const PROPERTY_MODE_REPLACE = 0;
const PROPERTY_MODE_APPEND = 2;

/** Bytes of a ChangeProperty request before its data. */
export const CHANGE_PROPERTY_HEADER_BYTES = 24;

/**
 * An unmapped 1×1 input-only window: a selection owner must be a window, and this one is never
 * shown. It hears its own property changes, which is how the owner gets a server timestamp.
 */
export function createHiddenWindow(connection: X11Connection, window: number, parent: number): void {
  const body = Buffer.alloc(28);
  body.writeUInt32LE(window, 0);
  body.writeUInt32LE(parent, 4);
  // x, y 0; width, height 1; border 0.
  body.writeUInt16LE(1, 12);
  body.writeUInt16LE(1, 14);
  body.writeUInt16LE(INPUT_ONLY, 18);
  body.writeUInt32LE(0, 20); // visual: CopyFromParent
  body.writeUInt32LE(CW_EVENT_MASK, 24);
  const values = Buffer.alloc(4);
  values.writeUInt32LE(PROPERTY_CHANGE_MASK, 0);
  // Depth 0: an input-only window has none.
  connection.send(packRequest(CREATE_WINDOW, 0, Buffer.concat([body, values])));
}

/** Replaces (or, with `append`, extends) a property; `format` is 8 or 32 bits per item. */
export function changeProperty(connection: X11Connection, window: number, property: number, type: number, format: 8 | 32, data: Buffer, append = false): void {
  const body = Buffer.alloc(20 + data.length);
  body.writeUInt32LE(window, 0);
  body.writeUInt32LE(property, 4);
  body.writeUInt32LE(type, 8);
  body.writeUInt8(format, 12);
  body.writeUInt32LE(data.length / (format / 8), 16);
  data.copy(body, 20);
  connection.send(packRequest(CHANGE_PROPERTY, append ? PROPERTY_MODE_APPEND : PROPERTY_MODE_REPLACE, body));
}

export function setSelectionOwner(connection: X11Connection, owner: number, selection: number, time: number): void {
  const body = Buffer.alloc(12);
  body.writeUInt32LE(owner, 0);
  body.writeUInt32LE(selection, 4);
  body.writeUInt32LE(time, 8);
  connection.send(packRequest(SET_SELECTION_OWNER, 0, body));
}

export async function getSelectionOwner(connection: X11Connection, selection: number): Promise<number> {
  const reply = await connection.request(packRequest(GET_SELECTION_OWNER, 0, uint32Body(selection)));
  return reply.readUInt32LE(8);
}

export interface SelectionRequest {
  time: number;
  owner: number;
  requestor: number;
  selection: number;
  target: number;
  /** NONE from clients older than ICCCM 2.0. */
  property: number;
}

/** The SelectionNotify event that tells `request`'s requestor where its answer is (NONE: refused). */
export function selectionNotify(request: SelectionRequest, property: number): Buffer {
  const event = Buffer.alloc(32);
  event.writeUInt8(SELECTION_NOTIFY, 0);
  event.writeUInt32LE(request.time, 4);
  event.writeUInt32LE(request.requestor, 8);
  event.writeUInt32LE(request.selection, 12);
  event.writeUInt32LE(request.target, 16);
  event.writeUInt32LE(property, 20);
  return event;
}

/** SendEvent of a 32-byte event to `destination`, with no event mask: its creator gets it. */
export function sendEvent(connection: X11Connection, destination: number, event: Buffer): void {
  const body = Buffer.alloc(40);
  body.writeUInt32LE(destination, 0);
  body.writeUInt32LE(0, 4);
  event.copy(body, 8, 0, 32);
  connection.send(packRequest(SEND_EVENT, 0, body));
}

/** The code of an event, without the bit that marks one sent by a client. */
export function eventCode(event: Buffer): number {
  return event.readUInt8(0) & 0x7f;
}

export function parseSelectionRequest(event: Buffer): SelectionRequest {
  return {
    time: event.readUInt32LE(4),
    owner: event.readUInt32LE(8),
    requestor: event.readUInt32LE(12),
    selection: event.readUInt32LE(16),
    target: event.readUInt32LE(20),
    property: event.readUInt32LE(24),
  };
}

export function parseSelectionClear(event: Buffer): { time: number; owner: number; selection: number } {
  return { time: event.readUInt32LE(4), owner: event.readUInt32LE(8), selection: event.readUInt32LE(12) };
}

export function parsePropertyNotify(event: Buffer): { window: number; atom: number; time: number; deleted: boolean } {
  return { window: event.readUInt32LE(4), atom: event.readUInt32LE(8), time: event.readUInt32LE(12), deleted: event.readUInt8(16) === 1 };
}

/** The zero-length append that makes the server send a PropertyNotify, and with it its time. */
export function touchProperty(connection: X11Connection, window: number, property: number): void {
  changeProperty(connection, window, property, ATOM_STRING, 8, Buffer.alloc(0), true);
}

/** The atoms a text owner answers to, interned on its connection. */
export interface TextAtoms {
  targets: number;
  timestamp: number;
  multiple: number;
  utf8String: number;
  text: number;
  textPlainUtf8: number;
  textPlain: number;
}

export const TEXT_ATOM_NAMES: Record<keyof TextAtoms, string> = {
  targets: 'TARGETS',
  timestamp: 'TIMESTAMP',
  multiple: 'MULTIPLE',
  utf8String: 'UTF8_STRING',
  text: 'TEXT',
  textPlainUtf8: 'text/plain;charset=utf-8',
  textPlain: 'text/plain',
};

export type SelectionAnswer =
  /** Put `data` in `property` of the requestor; `text` when it is the offered text itself. */
  | { kind: 'serve'; property: number; type: number; format: 8 | 32; data: Buffer; text: boolean }
  | { kind: 'refuse' };

function atomList(atoms: readonly number[]): Buffer {
  const data = Buffer.alloc(4 * atoms.length);
  atoms.forEach((atom, i) => data.writeUInt32LE(atom, 4 * i));
  return data;
}

/** ISO Latin-1, which STRING and text/plain are, or undefined when `text` has characters beyond it. */
function latin1(text: string): Buffer | undefined {
  for (const char of text) if ((char.codePointAt(0) as number) > 0xff) return undefined;
  return Buffer.from(text, 'latin1');
}

/**
 * What an owner of `text` answers to `request`, acquired at `ownedSince` (a server time):
 * TARGETS lists what it converts to, TIMESTAMP (which ICCCM requires) says when it took the
 * selection, the UTF-8 targets and TEXT get UTF-8, STRING and text/plain Latin-1 when the text
 * fits in it; anything else, MULTIPLE included, is refused. A request without a property (an
 * obsolete client) is answered in the property named like its target, as ICCCM says.
 */
export function answerSelectionRequest(request: SelectionRequest, text: string, ownedSince: number, atoms: TextAtoms): SelectionAnswer {
  const property = request.property === NONE ? request.target : request.property;
  const { target } = request;
  const utf8Targets = [atoms.utf8String, atoms.textPlainUtf8, atoms.text];
  const latin1Targets = [ATOM_STRING, atoms.textPlain];
  if (target === atoms.targets) {
    const offered = [atoms.targets, atoms.timestamp, ...utf8Targets, ...(latin1(text) ? latin1Targets : [])];
    return { kind: 'serve', property, type: ATOM_ATOM, format: 32, data: atomList(offered), text: false };
  }
  if (target === atoms.timestamp) {
    const data = Buffer.alloc(4);
    data.writeUInt32LE(ownedSince, 0);
    return { kind: 'serve', property, type: ATOM_INTEGER, format: 32, data, text: false };
  }
  if (utf8Targets.includes(target)) {
    // TEXT leaves the encoding to the owner: UTF8_STRING says which one it chose.
    const type = target === atoms.text ? atoms.utf8String : target;
    return { kind: 'serve', property, type, format: 8, data: Buffer.from(text, 'utf8'), text: true };
  }
  if (latin1Targets.includes(target)) {
    const data = latin1(text);
    return data ? { kind: 'serve', property, type: target, format: 8, data, text: true } : { kind: 'refuse' };
  }
  return { kind: 'refuse' };
}
