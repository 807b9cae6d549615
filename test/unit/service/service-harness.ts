/**
 * A RunService as the CLI builds one, with the display replaced by the fake operator: a temporary
 * data directory read with loadConfig, the model at a scripted OpenAI-compatible server (real
 * HTTP, the real client, GET /v1/models for the provider check), the memory model at a server of
 * its own so its summaries never take an agent's reply.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../../../src/shared/events';
import type { RunService, RunServiceDeps } from '../../../src/main/service/run-service';
import { startScriptedServer, type RecordedRequest, type ReplyScript, type ScriptedReply, type ScriptedServer } from '../../fixtures/openai-server';
import { serviceOnFakeDisplay } from '../../fixtures/fake-display-service';
import type { FakeOperator } from '../../fixtures/fakes';

export interface ServiceSetup {
  service: RunService;
  server: ScriptedServer;
  operator: FakeOperator;
  dataDir: string;
  close(): Promise<void>;
}

export async function startService(replies: ReplyScript, memoryModelUrl: string, extra: { deps?: Partial<RunServiceDeps>; config?: Record<string, unknown> } = {}): Promise<ServiceSetup> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mnemo-service-'));
  const server = await startScriptedServer({ replies });
  const { service, operator } = await serviceOnFakeDisplay({
    dataDir,
    config: { memory: { model: { baseUrl: memoryModelUrl } }, ...extra.config },
    modelUrl: server.url,
    deps: extra.deps,
  });
  return {
    service,
    server,
    operator,
    dataDir,
    async close() {
      await service.close();
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A reply of the tools family: the `computer` tool called with a thought and actions. */
export function toolCall(actions: unknown[], thought = 'Next.'): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

export function systemPrompt(request: RecordedRequest | undefined): string {
  const messages = (request?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ?? [];
  return messages
    .filter((message) => message.role === 'system')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');
}

/** Events with their seq, for comparing streams. */
export function seqs(events: readonly AgentEvent[]): number[] {
  return events.map((event) => event.seq);
}

/**
 * The usual frame of a test file: one memory model server for the file, and each test's service
 * closed after the test. `start` is startService with that memory model.
 */
export function serviceSuite(startMemoryModel: () => Promise<ScriptedServer>): { start: (replies: ReplyScript, extra?: Parameters<typeof startService>[2]) => Promise<ServiceSetup> } {
  let memoryModel: ScriptedServer | undefined;
  let current: ServiceSetup | undefined;
  beforeAll(async () => {
    memoryModel = await startMemoryModel();
  });
  afterAll(async () => {
    await memoryModel?.close();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    start: async (replies, extra) => {
      if (!memoryModel) throw new Error('serviceSuite: the memory model server is not up (start is for tests, not the file body)');
      current = await startService(replies, memoryModel.url, extra);
      return current;
    },
  };
}
