/**
 * npm run bench:step — the loop's own cost per step against a scripted model that answers at
 * once: observe + predict (HTTP round trip and parse) + act + record + settle, median over 50
 * steps, next to capture alone measured in the same run. The operator is the one `mnemo run` uses:
 * the isolated operator, with the display in a child process; capture is shown through it and in
 * process. Runs on a private bare 1280x800 Xvfb.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../src/shared/events';
import { ModelSettingsSchema } from '../src/shared/settings';
import { DeviceAgent } from '../src/main/agent/device-agent';
import { DEFAULT_SETTLE } from '../src/main/agent/settle';
import { createVisionModel } from '../src/main/model';
import { createDesktopOperator } from '../src/main/operator/desktop-operator';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { FileRunRecorder } from '../src/main/store/run-recorder';
import { startScriptedServer } from '../test/fixtures/openai-server';
import { fmt, fmtSigned, median, timeRunsInTurn } from './lib/stats';
import { startPrivateXvfb } from './lib/xvfb';

const STEPS = 50;

const xvfb = await startPrivateXvfb(1280, 800);
if (xvfb) process.env.DISPLAY = xvfb.display;
const loaded = await createIsolatedOperator();
const inProcess = await createDesktopOperator();
if (!loaded.ok || !inProcess.ok) {
  console.error(`bench:step: ${loaded.ok ? '' : loaded.message}${inProcess.ok ? '' : inProcess.message}`);
  process.exit(1);
}
const operator = loaded.operator;
const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-bench-step-'));

let served = 0;
const server = await startScriptedServer({
  replies: () => {
    served++;
    const action = served > STEPS ? { type: 'finished', summary: 'done' } : { type: 'mouse_move', x: 200 + (served % 2) * 400, y: 300 };
    return { toolCalls: [{ name: 'computer', arguments: { actions: [action] } }], usage: { prompt_tokens: 1000, completion_tokens: 20 } };
  },
});

async function runSteps(settleTimeoutMs: number): Promise<AgentEvent[]> {
  served = 0;
  const model = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model: 'gpt-4.1', family: 'tools' }));
  const recorder = await FileRunRecorder.create(dataDir, { task: 'bench', model: 'gpt-4.1', family: 'tools' });
  const agent = new DeviceAgent(
    { model, operator, recorder, askUser: async () => null },
    { limits: { maxSteps: STEPS + 1, maxCostUsd: null, maxConsecutiveErrors: 3, maxParseRetries: 3 }, settle: { ...DEFAULT_SETTLE, timeoutMs: settleTimeoutMs } },
  );
  const events: AgentEvent[] = [];
  for await (const event of agent.run('move the mouse back and forth', new AbortController().signal)) events.push(event);
  return events;
}

/** Per-step phase durations from event timestamps. */
function phases(events: AgentEvent[]) {
  const byStep = new Map<number, Partial<Record<AgentEvent['type'], number>>>();
  for (const event of events) {
    if (!('step' in event)) continue;
    const marks = byStep.get(event.step) ?? {};
    marks[event.type] ??= event.at;
    byStep.set(event.step, marks);
  }
  const rows = [...byStep.values()].filter((m) => m['action-result'] !== undefined && m['step-finished'] !== undefined);
  const span = (from: AgentEvent['type'], to: AgentEvent['type']) => rows.map((m) => (m[to] as number) - (m[from] as number));
  return {
    total: span('step-started', 'step-finished'),
    observe: span('step-started', 'observation'),
    predict: span('observation', 'prediction'),
    act: span('action', 'action-result'),
    settleAndRecord: span('action-result', 'step-finished'),
  };
}

try {
  const withSettle = phases(await runSteps(DEFAULT_SETTLE.timeoutMs));
  const noSettle = phases(await runSteps(0));
  const observeWith = (observer: Pick<typeof operator, 'observe'>) => async () => {
    const result = await observer.observe({ maxWidth: 1280, format: 'jpeg', quality: 80 });
    if (!result.ok) throw new Error(result.message);
  };
  const [throughHost = [], inProcessTimes = []] = await timeRunsInTurn(STEPS, [observeWith(operator), observeWith(inProcess.operator)]);
  const capture = median(throughHost);
  const captureInProcess = median(inProcessTimes);
  const stepWithSettle = median(withSettle.total);
  const stepOverhead = median(noSettle.total);
  console.log(`display ${process.env.DISPLAY}, ${STEPS} steps, scripted model answering at once (medians)`);
  console.log(`capture alone (observe → JPEG):         ${fmt(capture)} ms   (in process ${fmt(captureInProcess)} ms, ${fmtSigned(capture - captureInProcess)} ms through the operator host)`);
  console.log(`step, loop overhead (no settle wait):    ${fmt(stepOverhead)} ms   observe ${fmt(median(noSettle.observe))}, predict ${fmt(median(noSettle.predict))}, act ${fmt(median(noSettle.act))}, record ${fmt(median(noSettle.settleAndRecord))}`);
  console.log(`step, with settle detection (default):   ${fmt(stepWithSettle)} ms   settle+record ${fmt(median(withSettle.settleAndRecord))}`);
  console.log(`overhead/capture: ${(stepOverhead / capture).toFixed(2)}`);
  console.log(`step with settle/capture: ${(stepWithSettle / capture).toFixed(2)}`);
} finally {
  await operator.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
