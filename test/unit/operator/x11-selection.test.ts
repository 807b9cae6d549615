/**
 * Owning the clipboard, in bytes: what the owner answers to each request (ICCCM), the events it
 * reads and sends, the screen and id range it reads from the setup reply, and events delivered
 * by the connection between replies, against a scripted server. The owner on a real server is
 * tested in test/desktop/clipboard-paste.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { X11Connection } from '../../../src/main/operator/x11/connection';
import {
  answerSelectionRequest,
  ATOM_ATOM,
  ATOM_INTEGER,
  ATOM_STRING,
  NONE,
  parseSelectionRequest,
  SELECTION_NOTIFY,
  SELECTION_REQUEST,
  selectionNotify,
  type SelectionRequest,
  type TextAtoms,
} from '../../../src/main/operator/x11/selection';
import { maxRequestBytes } from '../../../src/main/operator/x11/setup';
import { reply, requestsIn, scriptedXServers } from '../../fixtures/x11/scripted-server';

const servers = scriptedXServers();

const ATOMS: TextAtoms = { targets: 300, timestamp: 301, multiple: 302, utf8String: 303, text: 304, textPlainUtf8: 305, textPlain: 306 };
const request = (target: number, property = 400): SelectionRequest => ({ time: 77, owner: 10, requestor: 20, selection: 200, target, property });
const atomsIn = (data: Buffer) => Array.from({ length: data.length / 4 }, (_, i) => data.readUInt32LE(4 * i));

describe('answerSelectionRequest', () => {
  it('lists its targets as ATOMs, the Latin-1 ones only for a text that fits in Latin-1', () => {
    const latin = answerSelectionRequest(request(ATOMS.targets), 'naïve', 5, ATOMS);
    expect(latin).toMatchObject({ kind: 'serve', property: 400, type: ATOM_ATOM, format: 32, text: false });
    if (latin.kind !== 'serve') return;
    expect(atomsIn(latin.data)).toEqual([300, 301, 303, 305, 304, ATOM_STRING, 306]);
    const cjk = answerSelectionRequest(request(ATOMS.targets), '漢字', 5, ATOMS);
    if (cjk.kind !== 'serve') throw new Error('TARGETS refused');
    expect(atomsIn(cjk.data)).toEqual([300, 301, 303, 305, 304]);
  });

  it('serves UTF-8 for the UTF-8 targets, typed as asked, and TEXT as UTF8_STRING', () => {
    expect(answerSelectionRequest(request(ATOMS.utf8String), '漢字', 5, ATOMS)).toEqual({ kind: 'serve', property: 400, type: 303, format: 8, data: Buffer.from('漢字'), text: true });
    expect(answerSelectionRequest(request(ATOMS.textPlainUtf8), 'é', 5, ATOMS)).toMatchObject({ type: 305, data: Buffer.from('é'), text: true });
    expect(answerSelectionRequest(request(ATOMS.text), 'é', 5, ATOMS)).toMatchObject({ type: 303, data: Buffer.from('é'), text: true });
  });

  it('serves STRING and text/plain as Latin-1, and refuses them for text beyond it', () => {
    expect(answerSelectionRequest(request(ATOM_STRING), 'café', 5, ATOMS)).toMatchObject({ type: ATOM_STRING, data: Buffer.from([0x63, 0x61, 0x66, 0xe9]), text: true });
    expect(answerSelectionRequest(request(ATOMS.textPlain), 'café', 5, ATOMS)).toMatchObject({ type: 306, text: true });
    expect(answerSelectionRequest(request(ATOM_STRING), 'café ☕', 5, ATOMS)).toEqual({ kind: 'refuse' });
  });

  it('answers TIMESTAMP with the time it took the selection', () => {
    const answer = answerSelectionRequest(request(ATOMS.timestamp), 'x', 123456, ATOMS);
    expect(answer).toMatchObject({ kind: 'serve', type: ATOM_INTEGER, format: 32, text: false });
    if (answer.kind === 'serve') expect(answer.data.readUInt32LE(0)).toBe(123456);
  });

  it('refuses MULTIPLE and unknown targets', () => {
    expect(answerSelectionRequest(request(ATOMS.multiple), 'x', 5, ATOMS)).toEqual({ kind: 'refuse' });
    expect(answerSelectionRequest(request(999), 'x', 5, ATOMS)).toEqual({ kind: 'refuse' });
  });

  it('answers a request without a property (an obsolete client) in the property named like its target', () => {
    expect(answerSelectionRequest(request(ATOMS.utf8String, NONE), 'x', 5, ATOMS)).toMatchObject({ kind: 'serve', property: ATOMS.utf8String });
  });
});

describe('selection events', () => {
  it('reads a SelectionRequest and builds the SelectionNotify that answers it', () => {
    const event = Buffer.alloc(32);
    event.writeUInt8(SELECTION_REQUEST | 0x80, 0);
    [77, 10, 20, 200, 303, 400].forEach((value, i) => event.writeUInt32LE(value, 4 + 4 * i));
    const parsed = parseSelectionRequest(event);
    expect(parsed).toEqual(request(303));
    const notify = selectionNotify(parsed, NONE);
    expect(notify.length).toBe(32);
    expect(notify.readUInt8(0)).toBe(SELECTION_NOTIFY);
    expect([4, 8, 12, 16, 20].map((at) => notify.readUInt32LE(at))).toEqual([77, 20, 200, 303, NONE]);
  });
});

/** A setup reply with a vendor string, one pixmap format and one screen whose root is `root`. */
function setupWithScreen(root: number): Buffer {
  const vendor = Buffer.from('Test');
  const reply = Buffer.alloc(40 + 4 + 8 + 40);
  reply.writeUInt8(1, 0);
  reply.writeUInt16LE(11, 2);
  reply.writeUInt16LE((reply.length - 8) / 4, 6);
  reply.writeUInt32LE(0x00400000, 12); // resource-id base
  reply.writeUInt32LE(0x001fffff, 16); // resource-id mask
  reply.writeUInt16LE(vendor.length, 24);
  reply.writeUInt16LE(65535, 26); // maximum request length, in 4-byte units
  reply.writeUInt8(1, 28); // screens
  reply.writeUInt8(1, 29); // pixmap formats
  reply.writeUInt8(8, 34);
  reply.writeUInt8(255, 35);
  vendor.copy(reply, 40);
  reply.writeUInt32LE(root, 40 + 4 + 8);
  return reply;
}

describe('maxRequestBytes', () => {
  it('reads the request limit, in bytes', () => {
    expect(maxRequestBytes(setupWithScreen(0x1e3))).toBe(262140);
  });

  it('is 0 for a reply too short to say', () => {
    expect(maxRequestBytes(Buffer.from([1, 0, 11, 0, 0, 0, 0, 0]))).toBe(0);
  });
});

describe('X11Connection events and ids', () => {
  it('hands events that arrive between replies to its listeners, and makes ids inside the range', async () => {
    const { display } = await servers.start((socket) => {
      socket.write(setupWithScreen(0x1e3));
      let nextSequence = 1;
      socket.on('data', (stream) => {
        for (const { opcode, sequence } of requestsIn(stream, nextSequence)) {
          nextSequence = sequence + 1;
          if (opcode !== 43) continue;
          // An event sent by another client (0x80), then the round trip's reply.
          const event = Buffer.alloc(32);
          event.writeUInt8(SELECTION_REQUEST | 0x80, 0);
          event.writeUInt32LE(303, 20);
          socket.write(Buffer.concat([event, reply(sequence, 0)]));
        }
      });
    });
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' });
    if (!opened.ok) throw new Error(opened.message);
    const connection = opened.value;
    const heard: Buffer[] = [];
    const stop = connection.onEvent((event) => heard.push(event));
    await connection.sync();
    expect(heard.map((event) => parseSelectionRequest(event).target)).toEqual([303]);
    stop();
    await connection.sync();
    expect(heard).toHaveLength(1);
    expect(connection.screen?.root).toBe(0x1e3);
    expect(connection.maxRequestBytes).toBe(262140);
    expect([connection.newId(), connection.newId()]).toEqual([0x00400001, 0x00400002]);
    connection.close();
  });
});
