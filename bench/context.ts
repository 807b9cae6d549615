/**
 * npm run bench:context — a 200-step scripted run with Mnemo's memory: the estimated prompt
 * tokens sent at steps 10, 50, 100 and 200, next to a naive full-history prompt (every earlier
 * step's text and screenshot) for the same run, and as the last line
 * `context ratio step200/step20: R` (goal R ≤ 1.2, while the naive prompt grows linearly).
 * Tokens are estimated as the pruning module does: text characters / 3, 800 per image.
 *
 * Then the cross-task run (bench/lib/cross-task.ts): 1,000 tasks of 5 steps each in one data
 * directory, the system prompt's tokens at tasks 10, 100 and 1,000, and as the last line
 * `cross-task prompt ratio task1000/task10: R` (goal R ≤ 1.2). MNEMO_BENCH_TASKS=N runs N tasks
 * (a quick look; the ratio is then taken at the last task).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../src/shared/events';
import { ModelSettingsSchema } from '../src/shared/settings';
import { DeviceAgent } from '../src/main/agent/device-agent';
import { createVisionModel } from '../src/main/model';
import { createTextModel, openBlackboard, TieredMemory, DEFAULT_PRUNING_OPTIONS } from '../src/main/memory';
import { createDesktopOperator } from '../src/main/operator/desktop-operator';
import { FileRunRecorder } from '../src/main/store/run-recorder';
import { startMemoryModelServer, startScriptedServer, type RecordedRequest } from '../test/fixtures/openai-server';
import { startPrivateXvfb } from './lib/xvfb';
import { runCrossTask } from './lib/cross-task';
import { RunLifecycle } from '../src/main/run/lifecycle';

const STEPS = 200;
const REPORT_AT = [10, 20, 50, 100, 200];
const { charsPerToken, tokensPerImage } = DEFAULT_PRUNING_OPTIONS;

const xvfb = await startPrivateXvfb(1280, 800);
if (xvfb) process.env.DISPLAY = xvfb.display;
const loaded = await createDesktopOperator();
if (!loaded.ok) {
  console.error(`bench:context: ${loaded.message}`);
  process.exit(1);
}
const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-bench-context-'));

/** A thought of realistic length, different at every step. */
const thought = (n: number) =>
  `Step ${n}: the list has not reached the entry I need yet, so I move the pointer over the next row and read its label before deciding whether to open it.`;
let served = 0;
const agentServer = await startScriptedServer({
  replies: () => {
    served++;
    const action = served >= STEPS ? { type: 'finished', summary: 'Reached the end of the list.' } : { type: 'mouse_move', x: 100 + (served % 40) * 20, y: 300 };
    return { text: thought(served), toolCalls: [{ name: 'computer', arguments: { thought: thought(served), actions: [action] } }], usage: { prompt_tokens: 1000, completion_tokens: 40 } };
  },
});
const memoryServer = await startMemoryModelServer(
  'Steps so far: the agent scrolls through a long list row by row, reading each label; no row matched yet; nothing failed.',
);

/** Text characters and images of a request body, as the model sees them. */
function measure(body: unknown): { chars: number; images: number } {
  let chars = 0;
  let images = 0;
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.startsWith('data:image/')) images++;
      else chars += value.length;
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(body);
  return { chars, images };
}
const tokens = ({ chars, images }: { chars: number; images: number }) => Math.round(chars / charsPerToken + images * tokensPerImage);

try {
  const model = createVisionModel(ModelSettingsSchema.parse({ baseUrl: agentServer.url, model: 'gpt-4.1', family: 'tools' }));
  const memoryModel = createTextModel(ModelSettingsSchema.parse({ baseUrl: memoryServer.url, model: 'gpt-4.1-mini', family: 'tools' }));
  const { blackboard } = await openBlackboard(dataDir);
  const conversation = new TieredMemory({}, { model: memoryModel });
  const recorder = await FileRunRecorder.create(dataDir, { task: 'bench', model: 'gpt-4.1', family: 'tools' });
  const agent = new DeviceAgent(
    { model, memory: { model: memoryModel, blackboard, conversation } },
    {
      limits: { maxSteps: STEPS + 1, maxCostUsd: null, maxConsecutiveErrors: 3, maxParseRetries: 3 },
      settle: { intervalMs: 20, timeoutMs: 0, threshold: 0.003 },
    },
  );
  const events: AgentEvent[] = [];
  const started = Date.now();
  for await (const event of agent.run('Find the row labelled "Invoice 2031" in the long list and open it', new RunLifecycle({ recorder, operator: loaded.operator, askUser: async () => null }, new AbortController().signal))) events.push(event);
  const end = events.at(-1);
  if (end?.type !== 'run-finished' || end.steps !== STEPS) throw new Error(`the run ended early: ${JSON.stringify(end)}`);

  const requests: RecordedRequest[] = agentServer.requests;
  const mnemo = requests.map((request) => tokens(measure(request.body)));
  // The naive prompt of step k: step 1's request (system, task, tools, one screenshot) plus every
  // earlier step's text and screenshot, nothing pruned or summarised.
  const first = measure(requests[0]!.body);
  const stepText = events.flatMap((event) => (event.type === 'prediction' ? [`${event.thought ?? ''}${JSON.stringify(event.actions)} done`.length] : []));
  const naive = requests.map((_, i) => {
    const history = stepText.slice(0, i).reduce((sum, chars) => sum + chars, 0);
    return tokens({ chars: first.chars + history, images: i + 1 });
  });

  console.log(`${STEPS}-step scripted run in ${((Date.now() - started) / 1000).toFixed(1)} s; estimated prompt tokens sent (text/${charsPerToken} + ${tokensPerImage} per image)`);
  console.log('step   mnemo   naive');
  for (const step of REPORT_AT) console.log(`${String(step).padStart(4)} ${String(mnemo[step - 1]).padStart(7)} ${String(naive[step - 1]).padStart(7)}`);
  console.log(`naive ratio step200/step20: ${((naive[199] as number) / (naive[19] as number)).toFixed(2)}`);
  console.log(`context ratio step200/step20: ${((mnemo[199] as number) / (mnemo[19] as number)).toFixed(2)}`);
} finally {
  await agentServer.close();
  await memoryServer.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const TASKS = Number(process.env.MNEMO_BENCH_TASKS ?? 1000);
const points = [10, 100, 1000].filter((task) => task < TASKS);
points.push(TASKS);
const crossStarted = Date.now();
console.log(`\ncross-task: ${TASKS} tasks of 5 steps in one data directory and one conversation (scripted models, fake operator)`);
const measured = await runCrossTask(TASKS, points, (task) => {
  if (task % 50 === 0) process.stderr.write(`  ${task}/${TASKS} tasks, ${((Date.now() - crossStarted) / 1000).toFixed(0)} s\n`);
});
console.log(`${TASKS} tasks in ${((Date.now() - crossStarted) / 1000).toFixed(0)} s; estimated tokens (characters / ${charsPerToken}) of the system prompt at the task's last step`);
console.log(' task  system  memory  blackboard  conversation  working  facts  layers  seed-board');
for (const point of measured) {
  const used = (name: string) => String(point.prompt?.sections.find((section) => section.name === name)?.usedTokens ?? 0);
  console.log(
    `${String(point.task).padStart(5)} ${String(point.systemTokens).padStart(7)} ${String(point.prompt?.totalTokens ?? 0).padStart(7)} ${used('blackboard').padStart(11)} ${used('conversation').padStart(13)} ${used('workingMemory').padStart(8)} ${used('facts').padStart(6)} ${used('layers').padStart(7)} ${String(point.seedBoardTokens).padStart(11)}`,
  );
}
const first = measured[0] as (typeof measured)[number];
const lastPoint = measured.at(-1) as (typeof measured)[number];
for (const point of measured.slice(1)) {
  const left = point.prompt?.sections.filter((section) => section.omitted > 0).map((section) => `${section.name}: ${section.leftOut}`) ?? [];
  if (left.length > 0) console.log(`left out at task ${point.task}: ${left.join('; ')}`);
}
console.log(`seed rendering of the blackboard, task${lastPoint.task}/task${first.task}: ${(lastPoint.seedBoardTokens / Math.max(1, first.seedBoardTokens)).toFixed(1)}`);
console.log(`cross-task prompt ratio task${lastPoint.task}/task${first.task}: ${(lastPoint.systemTokens / first.systemTokens).toFixed(2)}`);
