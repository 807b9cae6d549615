/**
 * The RECORD extension's packets: the context a demonstration creates (every client's device
 * events), the replies of an enabled context decoded into key, button and motion events, and the
 * connection delivering the stream of replies of its one EnableContext request until the end of
 * data, against a scripted server.
 */
import { describe, expect, it } from 'vitest';
import { X11Connection } from '../../../src/main/operator/x11/connection';
import { createContextRequest, decodeRecordReply, enableContextRequest, RecordCategory } from '../../../src/main/operator/x11/record';
import { reply, scriptedXServers, setupReply } from '../../fixtures/x11/scripted-server';

const servers = scriptedXServers();

/** A core device event as the server writes it: code, detail, time, root position. */
function deviceEvent(code: number, detail: number, time: number, x: number, y: number): Buffer {
  const event = Buffer.alloc(32);
  event.writeUInt8(code, 0);
  event.writeUInt8(detail, 1);
  event.writeUInt32LE(time, 4);
  event.writeUInt32LE(0x2a0, 8); // root
  event.writeInt16LE(x, 20);
  event.writeInt16LE(y, 22);
  return event;
}

describe('RECORD requests', () => {
  it('a context for every client’s key, button and motion events', () => {
    const request = createContextRequest(146, 0x400001);
    expect(request.readUInt8(0)).toBe(146);
    expect(request.readUInt8(1)).toBe(1);
    expect(request.readUInt16LE(2) * 4).toBe(request.length);
    expect(request.readUInt32LE(4)).toBe(0x400001);
    expect(request.readUInt32LE(12)).toBe(1); // one client spec
    expect(request.readUInt32LE(16)).toBe(1); // one range
    expect(request.readUInt32LE(20)).toBe(3); // XRecordAllClients
    const range = request.subarray(24, 48);
    // Only the device events: KeyPress (2) to MotionNotify (6).
    expect([...range]).toEqual([...Buffer.alloc(18), 2, 6, 0, 0, 0, 0]);
  });
});

describe('decodeRecordReply', () => {
  it('reads the device events of a reply from the server, in order', () => {
    const data = Buffer.concat([deviceEvent(4, 1, 1000, 200, 300), deviceEvent(5, 1, 1040, 200, 300), deviceEvent(2, 38, 1100, 200, 300), deviceEvent(6, 0, 1200, -5, 810)]);
    const { category, events } = decodeRecordReply(reply(7, RecordCategory.fromServer, data));
    expect(category).toBe(RecordCategory.fromServer);
    expect(events).toEqual([
      { kind: 'button', press: true, detail: 1, time: 1000, x: 200, y: 300 },
      { kind: 'button', press: false, detail: 1, time: 1040, x: 200, y: 300 },
      { kind: 'key', press: true, detail: 38, time: 1100, x: 200, y: 300 },
      { kind: 'motion', press: false, detail: 0, time: 1200, x: -5, y: 810 },
    ]);
  });

  it('the start and the end of the data carry no events; other events are skipped', () => {
    expect(decodeRecordReply(reply(7, RecordCategory.startOfData))).toEqual({ category: RecordCategory.startOfData, events: [] });
    expect(decodeRecordReply(reply(7, RecordCategory.endOfData))).toEqual({ category: RecordCategory.endOfData, events: [] });
    expect(decodeRecordReply(reply(7, RecordCategory.fromServer, deviceEvent(12, 0, 5, 0, 0))).events).toEqual([]);
  });
});

describe('X11Connection.stream', () => {
  it('hands over every reply of one request until the last, split across chunks as they come', async () => {
    const { display, sockets } = await servers.start((socket) => socket.write(setupReply()));
    const opened = await X11Connection.open(display, { XAUTHORITY: '/nonexistent' });
    if (!opened.ok) throw new Error(opened.message);
    const server = () => sockets[0]!;
    const requested = new Promise<Buffer>((resolve) => {
      const waitForSocket = () => (sockets[0] ? sockets[0].once('data', resolve) : setImmediate(waitForSocket));
      waitForSocket();
    });
    const seen: number[][] = [];
    const streamed = opened.value.stream(enableContextRequest(146, 9), (packet) => {
      const { category, events } = decodeRecordReply(packet);
      seen.push(events.map((event) => event.time));
      return category === RecordCategory.endOfData;
    });
    const request = await requested;
    expect(request.readUInt32LE(4)).toBe(9);
    const data = reply(1, RecordCategory.fromServer, Buffer.concat([deviceEvent(2, 38, 10, 0, 0), deviceEvent(3, 38, 20, 0, 0)]));
    server().write(reply(1, RecordCategory.startOfData));
    server().write(data.subarray(0, 40));
    server().write(data.subarray(40));
    server().write(reply(1, RecordCategory.endOfData));
    await streamed;
    expect(seen).toEqual([[], [10, 20], []]);
    // The connection goes on answering requests afterwards.
    expect(opened.value.closed).toBe(false);
    opened.value.close();
  });
});
