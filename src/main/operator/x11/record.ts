/**
 * The X RECORD extension, as much as a demonstration needs: a context that intercepts the device
 * events of every client (the keys and buttons the user presses, the pointer's moves, XTEST's
 * included), enabled on a connection of its own whose one request is then answered by a stream of
 * replies, each carrying a batch of raw 32-byte events, until the context is disabled from another
 * connection. Requests are encoded and replies decoded here, pure; input-recorder.ts runs them.
 *
 * Every number is little-endian (the connection asks for it, and recorded device events come in
 * the recording client's byte order).
 */
import { packRequest, uint32Body } from './connection';

const QUERY_VERSION = 0;
const CREATE_CONTEXT = 1;
const ENABLE_CONTEXT = 5;
const DISABLE_CONTEXT = 6;
const FREE_CONTEXT = 7;
/** XRecordAllClients: the current clients and those to come. */
const ALL_CLIENTS = 3;

/** What a reply of an enabled context carries (the `category` byte). */
export const RecordCategory = {
  fromServer: 0,
  fromClient: 1,
  clientStarted: 2,
  clientDied: 3,
  startOfData: 4,
  endOfData: 5,
} as const;

/** The core event codes of the device events a context intercepts. */
export const DeviceEventCode = { KeyPress: 2, KeyRelease: 3, ButtonPress: 4, ButtonRelease: 5, MotionNotify: 6 } as const;

export interface DeviceEvent {
  kind: 'key' | 'button' | 'motion';
  /** Press (true) or release (false); motion: false. */
  press: boolean;
  /** The keycode, or the button (1 left, 2 middle, 3 right, 4-7 wheel); 0 for motion. */
  detail: number;
  /** Server time in milliseconds (wraps after 49 days). */
  time: number;
  /** Where the pointer was, in pixels of the root window (the whole screen). */
  x: number;
  y: number;
}

export function queryVersionRequest(opcode: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt16LE(1, 0);
  body.writeUInt16LE(13, 2);
  return packRequest(opcode, QUERY_VERSION, body);
}

/** A context intercepting the device events from `first` to `last` (core codes) of every client. */
export function createContextRequest(opcode: number, context: number, first: number = DeviceEventCode.KeyPress, last: number = DeviceEventCode.MotionNotify): Buffer {
  // context, element header (no timestamps or sequence numbers), 3 pad, one client spec, one range.
  const body = Buffer.alloc(16 + 4 + 24);
  body.writeUInt32LE(context, 0);
  body.writeUInt32LE(1, 8);
  body.writeUInt32LE(1, 12);
  body.writeUInt32LE(ALL_CLIENTS, 16);
  // The range: core requests, core replies (2 each), extension requests and replies (6 each),
  // delivered events (2), device events (2), errors (2), client started, client died.
  const range = 20;
  body.writeUInt8(first, range + 18);
  body.writeUInt8(last, range + 19);
  return packRequest(opcode, CREATE_CONTEXT, body);
}

function contextRequest(opcode: number, minor: number, context: number): Buffer {
  return packRequest(opcode, minor, uint32Body(context));
}

/** Answered by a stream of replies on the connection that sent it, until the context is disabled. */
export const enableContextRequest = (opcode: number, context: number) => contextRequest(opcode, ENABLE_CONTEXT, context);
/** Sent on another connection: the stream ends with an end-of-data reply. */
export const disableContextRequest = (opcode: number, context: number) => contextRequest(opcode, DISABLE_CONTEXT, context);
export const freeContextRequest = (opcode: number, context: number) => contextRequest(opcode, FREE_CONTEXT, context);

export interface RecordReply {
  category: number;
  events: DeviceEvent[];
}

const KINDS: Record<number, { kind: DeviceEvent['kind']; press: boolean }> = {
  [DeviceEventCode.KeyPress]: { kind: 'key', press: true },
  [DeviceEventCode.KeyRelease]: { kind: 'key', press: false },
  [DeviceEventCode.ButtonPress]: { kind: 'button', press: true },
  [DeviceEventCode.ButtonRelease]: { kind: 'button', press: false },
  [DeviceEventCode.MotionNotify]: { kind: 'motion', press: false },
};

/**
 * One reply of an enabled context: its category and, from the server, the device events in its
 * data (32 bytes each, after the 32-byte header). Anything else in the data is skipped.
 */
export function decodeRecordReply(reply: Buffer): RecordReply {
  const category = reply.readUInt8(1);
  const events: DeviceEvent[] = [];
  if (category !== RecordCategory.fromServer) return { category, events };
  const end = Math.min(reply.length, 32 + 4 * reply.readUInt32LE(4));
  for (let at = 32; at + 32 <= end; at += 32) {
    const known = KINDS[reply.readUInt8(at) & 0x7f];
    if (!known) continue;
    events.push({
      ...known,
      detail: known.kind === 'motion' ? 0 : reply.readUInt8(at + 1),
      time: reply.readUInt32LE(at + 4),
      x: reply.readInt16LE(at + 20),
      y: reply.readInt16LE(at + 22),
    });
  }
  return { category, events };
}
