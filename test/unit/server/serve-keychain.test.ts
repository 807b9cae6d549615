/**
 * Browser mode keeps the API key where the desktop app does: the real `mnemo serve` on a private
 * D-Bus session bus with a real GNOME Keyring (test/fixtures/secret-service.ts). Settings' save
 * (PUT /api/settings) puts the key in the keyring and not in config.json (a key config.json held
 * is moved out, with one line saying so); a restarted `mnemo serve`, `mnemo check-model` and
 * `mnemo doctor` on the same data directory send it to a scripted OpenAI-compatible server as
 * their bearer token; `mnemo doctor --json` names the store; another data directory does not get
 * it. Without a Secret Service on the bus the key lands in config.json (0600) and doctor says so.
 * A locked keyring refuses a new key with the reason and keeps the one it holds. A session
 * recorded (by an older version) with a key that is now kept only in the keyring prints masked.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../fixtures/openai-server';
import { runMnemo, startMnemo, type StartedMnemo } from '../../fixtures/mnemo-cli';
import { startSessionBus, type TestSessionBus } from '../../fixtures/secret-service';
import { waitFor } from '../../fixtures/fakes';
import { piecesIn } from '../../fixtures/secrets';
import { SessionBuilder } from '../../fixtures/session-builder';

const LEGACY = 'sk-legacy-in-config-0123456789';
const SAVED = 'sk-saved-in-keyring-9876543210';
const LOCKED_OUT = 'sk-typed-while-locked-55555555';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-serve-keychain-'));
let provider: ScriptedServer;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  provider = await startScriptedServer({ replies: () => ({ text: 'OK' }) });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await provider?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** No key from the environment: the stored one is what must reach the provider. */
const NO_KEY_ENV = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MNEMO_MODEL: undefined, ANTHROPIC_API_KEY: undefined, GOOGLE_API_KEY: undefined, GEMINI_API_KEY: undefined };

async function sessionBus(): Promise<TestSessionBus> {
  const bus = await startSessionBus();
  cleanups.push(() => bus.stop());
  return bus;
}

function dataDirWith(config: Record<string, unknown>): string {
  const dataDir = join(mkdtempSync(join(scratch, 'data-')), 'mnemo');
  mkdirSync(dataDir, { mode: 0o700 });
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  return dataDir;
}

const modelOf = (apiKey?: string) => ({ model: { baseUrl: provider.url, model: 'scripted-model', family: 'tools', ...(apiKey ? { apiKey } : {}) } });
const configFile = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')) as { model?: { apiKey?: string } };
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
/** Where the provider's record stands now: its model calls and its model-list probes. */
const mark = () => ({ requests: provider.requests.length, probes: provider.probes.length });
/** The bearer tokens the provider was sent since the mark (model calls and probes alike), each once. */
const bearersSince = (from: ReturnType<typeof mark>) => [...new Set([...provider.requests.slice(from.requests), ...provider.probes.slice(from.probes)].map((request) => request.headers.authorization))];

interface Served {
  call(path: string, init?: RequestInit): Promise<Response>;
  /** Stops it (SIGTERM, as Ctrl+C) and answers all it printed. */
  stop(): Promise<{ stdout: string; stderr: string }>;
  stderr(): string;
}

async function serve(dataDir: string, env: NodeJS.ProcessEnv): Promise<Served> {
  const served: StartedMnemo = startMnemo(['serve', '--port', '0', '--data-dir', dataDir], { env: { ...NO_KEY_ENV, ...env } });
  let stopped: Promise<{ stdout: string; stderr: string }> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      if (served.child.exitCode === null) served.child.kill('SIGTERM');
      const result = await served.result;
      return { stdout: result.stdout, stderr: result.stderr };
    })();
    return stopped;
  };
  cleanups.push(async () => void (await stop()));
  await waitFor(() => served.child.exitCode !== null || /Mnemo is at /.test(served.output().stdout), 'mnemo serve to start', 300_000);
  const url = /Mnemo is at (\S+)/.exec(served.output().stdout)?.[1];
  if (!url) throw new Error(`mnemo serve did not start: ${served.output().stderr}`);
  const address = new URL(url);
  const token = address.searchParams.get('token') ?? '';
  return {
    call: (path, init = {}) => fetch(`${address.origin}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } }),
    stop,
    stderr: () => served.output().stderr,
  };
}

async function save(served: Served, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await served.call('/api/settings', { method: 'PUT', body: JSON.stringify(body) });
  return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
}

/** "Test connection" with the saved settings: the provider's model list is asked with the stored key. */
async function testConnection(served: Served): Promise<unknown> {
  const answer = await served.call('/api/provider/check', { method: 'POST', body: '{}' });
  return answer.json();
}

async function doctorKeyStore(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ check: string; status: string; detail: string; fix: string } | undefined> {
  const doctor = await runMnemo(['doctor', '--json', '--data-dir', dataDir], { env: { ...NO_KEY_ENV, ...env } });
  const checks = JSON.parse(doctor.stdout) as Array<{ check: string; status: string; detail: string; fix: string }>;
  return checks.find((check) => check.check === 'key store');
}

/** Every file under the data directory whose text holds the secret. */
function filesHolding(dir: string, secret: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; parentPath: string; name: string }>)
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path).includes(secret));
}

describe.skipIf(process.platform !== 'linux')('mnemo serve keeps the API key in the Secret Service', () => {
  it('moves a key config.json held into the keyring, saves a new one there, and a restarted serve, check-model and doctor use it', { timeout: 600_000 }, async () => {
    const bus = await sessionBus();
    await bus.startKeyring();
    const dataDir = dataDirWith(modelOf(LEGACY));
    const lookup = () => bus.secretTool(['lookup', 'application', 'mnemo', 'data-dir', dataDir]);

    const first = await serve(dataDir, bus.env);
    // The line at start: a keyring is there, config.json still holds the key in clear.
    expect(first.stderr()).toMatch(/key store: the Secret Service can keep the API key, but config\.json \(.*\) still holds it in clear/);

    // Saving without typing a key moves the one config.json holds.
    const config = { ...modelOf(), agent: { maxSteps: 9 } };
    const moved = await save(first, { config });
    expect(moved.status).toBe(200);
    expect(moved.json.notice).toBe(`the API key was moved from ${join(dataDir, 'config.json')} to the Secret Service ("Mnemo API key (${dataDir})")`);
    expect(lookup()).toMatchObject({ code: 0, stdout: LEGACY });
    expect(configFile(dataDir).model?.apiKey).toBeUndefined();

    // A key typed in Settings replaces it in the keyring; config.json never holds it.
    const saved = await save(first, { config, apiKey: SAVED });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ hasApiKey: true, keyStore: { status: 'ok', detail: `the Secret Service keeps the API key ("Mnemo API key (${dataDir})")` } });
    expect(saved.json.notice).toBeUndefined();
    expect(lookup()).toMatchObject({ code: 0, stdout: SAVED });
    expect(configFile(dataDir)).toMatchObject({ agent: { maxSteps: 9 } });
    expect(configFile(dataDir).model?.apiKey).toBeUndefined();
    expect(mode(join(dataDir, 'config.json'))).toBe('600');
    // Labelled for a person looking in their keyring tool.
    expect(bus.secretTool(['search', '--all', 'application', 'mnemo', 'data-dir', dataDir]).stdout).toContain(`label = Mnemo API key (${dataDir})`);

    let probes = mark();
    expect(await testConnection(first)).toMatchObject({ ok: true });
    expect(bearersSince(probes)).toEqual([`Bearer ${SAVED}`]);
    const { stdout, stderr } = await first.stop();
    expect(stderr).toContain(`mnemo serve: the API key was moved from ${join(dataDir, 'config.json')} to the Secret Service`);

    // A restarted serve reads it from the keyring.
    const second = await serve(dataDir, bus.env);
    expect(second.stderr()).toContain(`key store: the Secret Service keeps the API key ("Mnemo API key (${dataDir})")`);
    probes = mark();
    expect(await testConnection(second)).toMatchObject({ ok: true });
    expect(bearersSince(probes)).toEqual([`Bearer ${SAVED}`]);
    const settings = (await (await second.call('/api/settings')).json()) as Record<string, unknown>;
    expect(settings).toMatchObject({ hasApiKey: true, keyStore: { status: 'ok' } });
    const again = await second.stop();

    // The CLI on the same data directory uses the same key.
    probes = mark();
    const checked = await runMnemo(['check-model', '--json', '--data-dir', dataDir], { env: { ...NO_KEY_ENV, ...bus.env } });
    expect(checked.code).toBe(0);
    expect(bearersSince(probes)).toEqual([`Bearer ${SAVED}`]);

    // The doctor names the store, and checks the provider with the keyring's key.
    probes = mark();
    expect(await doctorKeyStore(dataDir, bus.env)).toEqual({ check: 'key store', status: 'ok', detail: `the Secret Service keeps the API key ("Mnemo API key (${dataDir})")`, fix: '' });
    expect(bearersSince(probes)).toEqual([`Bearer ${SAVED}`]);

    // Another data directory has its own entry: none yet.
    const other = dataDirWith(modelOf());
    expect(await doctorKeyStore(other, bus.env)).toMatchObject({ status: 'ok', detail: expect.stringContaining('no API key kept yet') });

    // Never printed, never in a file of the data directory.
    for (const key of [LEGACY, SAVED]) {
      expect(filesHolding(dataDir, key)).toEqual([]);
      expect(`${stdout}${stderr}${again.stdout}${again.stderr}${checked.stdout}${checked.stderr}`).not.toContain(key);
    }
  });

  it('without a Secret Service on the session bus, the key lands in config.json (0600), and the window and doctor say so', { timeout: 600_000 }, async () => {
    // A bus with no keyring on it (and nothing it could start).
    const bus = await sessionBus();
    const dataDir = dataDirWith(modelOf());

    const served = await serve(dataDir, bus.env);
    expect(served.stderr()).toMatch(/key store: config\.json \(.*, owner-only, 0600\): no Secret Service keyring answers on the session bus/);
    const saved = await save(served, { config: modelOf(), apiKey: SAVED });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({
      hasApiKey: true,
      keyStore: { status: 'warn', detail: expect.stringMatching(/^config\.json /) },
      notice: expect.stringMatching(/^no Secret Service keyring answers on the session bus .*: the API key is kept in .*config\.json \(owner-only, 0600\)$/),
    });
    expect(configFile(dataDir).model?.apiKey).toBe(SAVED);
    expect(mode(join(dataDir, 'config.json'))).toBe('600');
    const probes = mark();
    expect(await testConnection(served)).toMatchObject({ ok: true });
    expect(bearersSince(probes)).toEqual([`Bearer ${SAVED}`]);
    const { stdout, stderr } = await served.stop();
    expect(`${stdout}${stderr}`).not.toContain(SAVED);

    expect(await doctorKeyStore(dataDir, bus.env)).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^config\.json \(.*\): no Secret Service keyring answers/), fix: expect.stringMatching(/keyring/) });
  });

  it('a locked keyring refuses a new key with the reason, writes nothing, and the key it holds stays in use', { timeout: 600_000 }, async () => {
    const bus = await sessionBus();
    await bus.startKeyring();
    const dataDir = dataDirWith(modelOf());
    // Saved in an earlier session.
    expect(bus.secretTool(['store', `--label=Mnemo API key (${dataDir})`, 'application', 'mnemo', 'data-dir', dataDir], SAVED).code).toBe(0);
    const served = await serve(dataDir, bus.env);
    const before = readFileSync(join(dataDir, 'config.json'), 'utf8');

    bus.lockKeyring();
    const refused = await save(served, { config: { ...modelOf(), agent: { maxSteps: 3 } }, apiKey: LOCKED_OUT });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatch(/^the API key was not saved: the keyring is locked \(Cannot create an item in a locked collection\) while saving the API key; unlock the keyring/);
    // Nothing written: not the key, not the other settings.
    expect(readFileSync(join(dataDir, 'config.json'), 'utf8')).toBe(before);
    // The key kept before is still there (locked), and still what the runs use.
    expect(bus.secretTool(['search', '--all', 'application', 'mnemo', 'data-dir', dataDir]).stdout).toContain(`label = Mnemo API key (${dataDir})`);
    const probes = mark();
    expect(await testConnection(served)).toMatchObject({ ok: true });
    expect(bearersSince(probes)).toEqual([`Bearer ${SAVED}`]);
    const { stdout, stderr } = await served.stop();
    expect(`${stdout}${stderr}`).not.toContain(LOCKED_OUT);
    expect(filesHolding(dataDir, LOCKED_OUT)).toEqual([]);

    // The doctor, which never prompts, says the keyring is locked.
    expect(await doctorKeyStore(dataDir, bus.env)).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^the Secret Service: the keyring holding "Mnemo API key \(.*\)" is locked/), fix: expect.stringMatching(/^unlock the keyring/) });
  });

  it('show, sessions and export mask an old record holding the key the keyring keeps', { timeout: 600_000 }, async () => {
    const bus = await sessionBus();
    await bus.startKeyring();
    const dataDir = dataDirWith(modelOf());
    expect(bus.secretTool(['store', `--label=Mnemo API key (${dataDir})`, 'application', 'mnemo', 'data-dir', dataDir], SAVED).code).toBe(0);
    // As a version before the redaction policy recorded it: the key on disk.
    const task = `Log in with ${SAVED}`;
    const session = await SessionBuilder.create(dataDir, { task, model: 'scripted-model', family: 'tools' });
    await session.record({ type: 'run-started', task, model: 'scripted-model', family: 'tools', limits: { maxSteps: 5, maxCostUsd: null } });
    await session.record({ type: 'run-finished', status: 'failed', reason: `the model endpoint refused the request: ${SAVED}`, summary: null, steps: 0, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } });
    await session.recorder.close();

    const out = join(scratch, `export-${session.id}.json`);
    for (const args of [['show', session.id, '--json'], ['sessions', '--json'], ['export', session.id, '--json', out]]) {
      const run = await runMnemo([...args, '--data-dir', dataDir], { env: { ...NO_KEY_ENV, ...bus.env } });
      expect(run.code, run.stderr).toBe(0);
      expect(piecesIn(run.stdout + run.stderr, SAVED), args[0]).toEqual([]);
    }
    expect(piecesIn(readFileSync(out, 'utf8'), SAVED)).toEqual([]);
  });
});
