/**
 * One redaction policy, built from the resolved settings: a key known only from the app's keychain
 * (the run service's `storedApiKey`: in no flag, no environment variable, not in config.json),
 * echoed back by the scripted providers in every way they can (the thought, the typed text, a
 * fact, a provider error, the memory model's summaries, working memory and fact detection), is
 * found nowhere afterwards: in no file under the data directory (sessions, memory, facts,
 * blackboard, working memory, the log), in no event emitted, in nothing the app's backend answers
 * and in nothing `mnemo show`, `sessions` and `memory show` print. And a key saved in Settings
 * after the service started is masked in the next run.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { AppBackend, configFileKeyStore } from '../../../src/main/service/front-ends/app-backend';
import type { KeyStore } from '../../../src/main/settings/key-store';
import type { RunHandle, RunService } from '../../../src/main/service/run-service';
import { serviceOnFakeDisplay } from '../../fixtures/fake-display-service';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { startScriptedServer, type RecordedRequest, type ScriptedReply, type ScriptedServer } from '../../fixtures/openai-server';
import { filesHolding, piecesIn } from '../../fixtures/secrets';
import { FAST_SETTLE } from '../run/agent-harness';
import { collect } from '../../fixtures/fakes';
import { toolCall } from './service-harness';

const KEYCHAIN_KEY = 'sk-kc-Zq81LmWcXb27RtYu4f9QpN3vT6';
const SAVED_LATER = 'sk-sl-Hq4Lw2Xp9Tz7Kd3Mv8RyB5nJ1';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-redaction-'));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function systemOf(request: RecordedRequest): string {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const system = messages.find((message) => message.role === 'system')?.content;
  return typeof system === 'string' ? system : '';
}

/** A model that echoes `key` wherever it writes: the thought, typed text, a fact, an error. */
async function echoingModel(key: string): Promise<ScriptedServer> {
  const server = await startScriptedServer({
    replies: [
      toolCall(
        [
          { type: 'type', text: `my key is ${key}` },
          { type: 'save_fact', keyword: 'api-key', description: `The key ${key}`, value: key },
        ],
        `I will paste ${key} into the field.`,
      ),
      { status: 400, body: { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error' } } },
      toolCall([{ type: 'finished', summary: `Pasted ${key}.` }], `Done with ${key}.`),
    ],
  });
  cleanups.push(() => server.close());
  return server;
}

/** A memory model that echoes `key` in each of its answers; the blackboard summary fails with it. */
async function echoingMemoryModel(key: string): Promise<ScriptedServer> {
  const server = await startScriptedServer({
    replies: (request): ScriptedReply => {
      const system = systemOf(request);
      if (system.startsWith('You pick out lasting facts')) return { text: `[{"subject": "user", "keyword": "token", "description": "The user's key", "value": "${key}"}]` };
      if (system.startsWith('You keep the working memory')) return { text: `The user's key is ${key}.` };
      if (system.startsWith('You fold one finished task')) return { status: 500, body: { error: { message: `summary failed for ${key}` } } };
      return { text: JSON.stringify({ summary: `The agent typed ${key}.` }) };
    },
  });
  cleanups.push(() => server.close());
  return server;
}

async function runToEnd(service: RunService, task: string): Promise<{ handle: RunHandle; emitted: AgentEvent[] }> {
  const started = await service.agentRuns.start({ task, interactive: false, agent: { settle: FAST_SETTLE } });
  if (!started.ok) throw new Error(`${started.error.kind}: ${started.error.message}`);
  // The events as they are emitted, followed live from the first one.
  const emitted = collect(started.value.events(0));
  await started.value.done;
  return { handle: started.value, emitted: await emitted };
}

/** Everything the window is answered about a run, as JSON (what the IPC and `mnemo serve` send). */
async function backendAnswers(backend: AppBackend, handle: RunHandle): Promise<string> {
  const answers = [
    await backend.sessions(),
    await backend.events(handle.id),
    await backend.report(handle.id),
    await backend.service.records.session(handle.id),
    await backend.service.records.memory(handle.id),
    await backend.facts(),
    await backend.searchFacts({ text: 'key' }),
    await backend.conversations(),
    await backend.workingMemory(handle.conversationId as string),
    backend.settings(),
  ];
  return JSON.stringify(answers);
}

/** What the CLI prints of the data directory's records. */
async function printed(dataDir: string, id: string): Promise<string> {
  const runs = await Promise.all([
    runMnemo(['show', id, '--json', '--data-dir', dataDir]),
    runMnemo(['sessions', '--json', '--data-dir', dataDir]),
    runMnemo(['memory', 'show', id, '--json', '--data-dir', dataDir]),
  ]);
  for (const run of runs) expect(run.code, run.stderr).toBe(0);
  return runs.map((run) => run.stdout + run.stderr).join('\n');
}

describe('the redaction policy', () => {
  it('a key known only from the keychain, echoed by the providers, is found nowhere', { timeout: 240_000 }, async () => {
    const model = await echoingModel(KEYCHAIN_KEY);
    const memoryModel = await echoingMemoryModel(KEYCHAIN_KEY);
    const dataDir = mkdtempSync(join(scratch, 'keychain-'));
    const logged: string[] = [];
    const { service, operator } = await serviceOnFakeDisplay({
      dataDir,
      config: { memory: { model: { baseUrl: memoryModel.url } } },
      modelUrl: model.url,
      deps: {
        storedApiKey: () => KEYCHAIN_KEY,
        // As the app keeps its log: a file, here under the data directory so that it is searched too.
        log: (line) => {
          logged.push(line);
          appendFileSync(join(dataDir, 'mnemo.log'), `${line}\n`);
        },
      },
    });
    const keychain: KeyStore = {
      get: () => KEYCHAIN_KEY,
      save: async () => ({ ok: true, inFile: undefined, note: null }),
      status: () => ({ status: 'ok', detail: 'a keychain', fix: '' }),
      refresh: async () => undefined,
    };
    const backend = new AppBackend(service, keychain);

    const { handle, emitted } = await runToEnd(service, `Paste ${KEYCHAIN_KEY} into the form`);
    await service.close();

    // The key was really used and really echoed: sent to both providers, typed on the desktop.
    expect(model.requests[0]?.headers.authorization).toBe(`Bearer ${KEYCHAIN_KEY}`);
    expect(memoryModel.requests.length).toBeGreaterThan(0);
    expect(memoryModel.requests.every((request) => request.headers.authorization === `Bearer ${KEYCHAIN_KEY}`)).toBe(true);
    expect(JSON.stringify(operator.executed.map((executed) => executed.action))).toContain(KEYCHAIN_KEY);
    expect(emitted.map((event) => event.type)).toEqual(expect.arrayContaining(['model-error', 'action', 'thought-delta', 'memory', 'run-finished']));
    expect(emitted.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });
    // The blackboard summary failed with the key in its message: said in the log, masked.
    expect(logged.join('\n')).toMatch(/the blackboard was not compacted/);

    expect(filesHolding(dataDir, KEYCHAIN_KEY)).toEqual([]);
    expect(piecesIn(JSON.stringify(emitted), KEYCHAIN_KEY)).toEqual([]);
    expect(piecesIn(handle.task, KEYCHAIN_KEY)).toEqual([]);
    expect(piecesIn(await backendAnswers(backend, handle), KEYCHAIN_KEY)).toEqual([]);
    expect(piecesIn(await printed(dataDir, handle.id), KEYCHAIN_KEY)).toEqual([]);
    await service.close();
  });

  it('a key saved in Settings after the service started is masked in the next run', { timeout: 240_000 }, async () => {
    const model = await echoingModel(SAVED_LATER);
    const memoryModel = await echoingMemoryModel(SAVED_LATER);
    const dataDir = mkdtempSync(join(scratch, 'saved-later-'));
    const { service } = await serviceOnFakeDisplay({ dataDir, config: { memory: { model: { baseUrl: memoryModel.url } } }, modelUrl: model.url, deps: { log: () => undefined } });
    cleanups.push(() => service.close());
    // Browser mode: the key is saved to config.json, where the CLI reads it.
    const backend = new AppBackend(service, configFileKeyStore(service));
    // The service has answered from the settings before the key exists.
    expect(service.config.redact(`key ${SAVED_LATER}`)).toContain(SAVED_LATER);

    const saved = await backend.saveSettings({ config: service.config.loaded.file, apiKey: SAVED_LATER });
    expect(saved.ok).toBe(true);
    const { handle, emitted } = await runToEnd(service, 'Paste the key into the form');
    await service.close();

    expect(model.requests[0]?.headers.authorization).toBe(`Bearer ${SAVED_LATER}`);
    // config.json is where the user asked the key to be kept; nothing else holds it.
    expect(filesHolding(dataDir, SAVED_LATER)).toEqual(['config.json']);
    expect(piecesIn(JSON.stringify(emitted), SAVED_LATER)).toEqual([]);
    expect(piecesIn(await backendAnswers(backend, handle), SAVED_LATER)).toEqual([]);
  });
});
