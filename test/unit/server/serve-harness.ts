/**
 * `mnemo serve` over a run service on the fake display, for the tests of its commands: the real
 * server (127.0.0.1, its token) in front of the service the CLI would build (a scripted model, the
 * memory model's own server), both closed after each test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startMnemoServer, type MnemoServer } from '../../../src/main/server/mnemo-server';
import { useMemoryModel } from '../../fixtures/memory-model';
import type { ReplyScript } from '../../fixtures/openai-server';
import { startService, type ServiceSetup } from '../service/service-harness';

export interface Served {
  setup: ServiceSetup;
  server: MnemoServer;
  /** What every API request carries: the server's token. */
  headers: Record<string, string>;
}

export function useServe(): { start(replies: ReplyScript): Promise<Served>; readonly memoryModel: { readonly url: string } } {
  const memoryModel = useMemoryModel();
  const rendererDir = mkdtempSync(join(tmpdir(), 'mnemo-serve-'));
  let setup: ServiceSetup | undefined;
  let server: MnemoServer | undefined;
  beforeAll(() => writeFileSync(join(rendererDir, 'index.html'), ''));
  afterEach(async () => {
    await server?.close();
    await setup?.close();
    server = setup = undefined;
  });
  afterAll(() => rmSync(rendererDir, { recursive: true, force: true }));
  return {
    memoryModel,
    async start(replies) {
      setup = await startService(replies, memoryModel.url);
      server = await startMnemoServer({ service: setup.service, rendererDir, port: 0 });
      return { setup, server, headers: { authorization: `Bearer ${server.token}` } };
    },
  };
}
