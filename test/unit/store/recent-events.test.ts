/**
 * A session opened again is not read again while its record is unchanged; a session still being
 * recorded is read again as it grows; only the last few are kept. The list the window is sent is
 * what the record holds, the second time as the first (through the real `send`, compressed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { send } from '../../../src/main/http/http-io';
import { SessionStore } from '../../../src/main/store/session-store';
import { SessionBuilder } from '../../fixtures/session-builder';

const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-recent-events-'));
const builders: SessionBuilder[] = [];
afterAll(async () => {
  for (const builder of builders) await builder.recorder.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function newSession(task: string): Promise<SessionBuilder> {
  const builder = await SessionBuilder.create(dataDir, { task, model: 'm', family: 'tools' });
  builders.push(builder);
  return builder;
}

async function recordSteps(builder: SessionBuilder, from: number, to: number): Promise<void> {
  for (let step = from; step <= to; step++) {
    await builder.record({ type: 'step-started', step });
    await builder.record({ type: 'note', step, message: `step ${step}` });
  }
  await builder.recorder.flush();
}

describe('the events of the sessions opened last', () => {
  it('are read once while the record is unchanged, again when it grew, and kept for the last two sessions only', async () => {
    const store = new SessionStore(dataDir);
    const growing = await newSession('grows');
    await recordSteps(growing, 1, 3);

    const first = await store.readEvents(growing.id);
    const again = await store.readEvents(growing.id);
    expect(first.ok && first.events).toHaveLength(6);
    expect(again.ok && again.events).toBe(first.ok && first.events);
    expect(Object.isFrozen(first.ok && first.events)).toBe(true);

    // Still recording: the new events are there the next time.
    await recordSteps(growing, 4, 5);
    const grown = await store.readEvents(growing.id);
    expect(grown.ok && grown.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(grown.ok && grown.events).toEqual(growing.events);

    // Two other sessions opened since: the first one is read afresh (an equal list, not the one kept).
    for (const task of ['second', 'third']) {
      const other = await newSession(task);
      await recordSteps(other, 1, 1);
      await store.readEvents(other.id);
    }
    const reread = await store.readEvents(growing.id);
    expect(reread.ok && reread.events).not.toBe(grown.ok && grown.events);
    expect(reread.ok && reread.events).toEqual(grown.ok && grown.events);
  });

  it('go to the window as the record holds them, compressed, the second time as the first', async () => {
    const store = new SessionStore(dataDir);
    const session = await newSession('sent');
    await recordSteps(session, 1, 200);
    const server: Server = createServer((request, response) => {
      void store.readEvents(session.id).then((read) => send(response, { status: 200, json: read.ok ? read.events : null }, String(request.headers['accept-encoding'] ?? '')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const bodies: unknown[] = [];
      for (let round = 0; round < 2; round++) {
        // Node's fetch would decompress by itself: the raw bytes are read here to see them compressed.
        const raw = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
          get({ host: '127.0.0.1', port, path: '/', headers: { 'accept-encoding': 'gzip' } }, (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ encoding: response.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
          }).on('error', reject);
        });
        expect(raw.encoding).toBe('gzip');
        bodies.push(JSON.parse(gunzipSync(raw.bytes).toString('utf8')));
      }
      expect(bodies[0]).toEqual(session.events);
      expect(bodies[1]).toEqual(session.events);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
