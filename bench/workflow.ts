/**
 * npm run bench:workflow — a recorded 20-step form run, saved as a workflow and run again with
 * new values by the real CLI, on a private 1280x800 Xvfb with the instrumented page in kiosk
 * Chromium and the scripted OpenAI-compatible server as the model:
 *
 *   unchanged   the page as recorded: the model calls the rerun made (goal 0);
 *   moved       the form moved 150 px, --policy reground: the rerun's tokens over the recording's
 *               (goal ≤ 0.10; the model is asked only for a step nothing else found);
 *   per step    the rerun's own work per step (capture, comparisons, the effect check: the step's
 *               time less the action and the wait for the screen to settle) over one capture of
 *               the screen at the same size, measured in the same run (goal ≤ 3).
 *
 * The last three lines are the figures.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply } from '../test/fixtures/openai-server';
import { launchKiosk } from '../test/fixtures/desktop/chromium';
import { startEventServer } from '../test/fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT } from '../test/fixtures/desktop/layout';
import { jsonLines, runMnemo } from '../test/fixtures/mnemo-cli';
import { median, timeRuns } from './lib/stats';
import { startPrivateXvfb } from './lib/xvfb';

const RECORDED_STEPS = 20;
const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * IMAGE.width) / 1280), y: Math.round((p.y * IMAGE.height) / 800) });
const log = (line: string) => process.stdout.write(`${line}\n`);
type Event = { type: string; [key: string]: unknown };

const xvfb = await startPrivateXvfb(1280, 800);
if (xvfb) process.env.DISPLAY = xvfb.display;
const display = process.env.DISPLAY ?? ':99';
const openbox = spawnSync('which', ['openbox']).status === 0 ? spawn('openbox', [], { stdio: 'ignore', env: { ...process.env, DISPLAY: display } }) : null;
const root = await mkdtemp(join(tmpdir(), 'mnemo-bench-workflow-'));
const server = await startEventServer();
const kiosk = await launchKiosk(server, { display });
const memoryModel = await startMemoryModelServer();
const dataDir = join(root, 'data');

const tool = (actions: unknown[], thought: string): ScriptedReply => ({ text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] });
const mnemo = async (args: string[]) => {
  const run = await runMnemo([...args, '--data-dir', dataDir], { env: { DISPLAY: display, OPENAI_API_KEY: '' } });
  return { ...run, events: jsonLines<Event>(run.stdout) };
};
const fresh = async (shift = { dx: 0, dy: 0 }) => {
  await kiosk.focus();
  await server.shift(shift.dx, shift.dy);
  const state = await server.reset();
  server.clear();
  return state;
};

try {
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: IMAGE.width }, memory: { model: { baseUrl: memoryModel.url } } }));

  // The recording: 19 steps filling the two fields in turn (click, select all, type), then submit.
  const field = toImage(centreOf(TARGET_LAYOUT.field));
  const area = toImage(centreOf(TARGET_LAYOUT.area));
  const replies: ScriptedReply[] = [];
  for (let i = 1; i < RECORDED_STEPS; i++) {
    const target = i % 2 === 1 ? field : area;
    replies.push(tool([{ type: 'click', ...target }, { type: 'hotkey', keys: ['ctrl', 'a'] }, { type: 'type', text: `${i % 2 === 1 ? 'Name' : 'Note'} number ${i}` }], `Step ${i}: the ${i % 2 === 1 ? 'name' : 'notes'}.`));
  }
  replies.push(tool([{ type: 'click', ...toImage(centreOf(TARGET_LAYOUT['btn-center'])) }], 'I submit the form.'));
  replies.push(tool([{ type: 'finished', summary: 'Submitted.' }], 'Done.'));
  await fresh();
  const model = await startScriptedServer({ replies });
  const recorded = await mnemo(['run', 'Fill in the form twenty times and submit it', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--json', '--non-interactive']);
  await model.close();
  if (recorded.code !== 0) throw new Error(`the recording failed (exit ${recorded.code}): ${recorded.stderr}`);
  const session = recorded.events[0]?.runId as string;

  const saved = await mnemo(['workflow', 'save', session, '--name', 'bench', '--auto-params', '--json']);
  if (saved.code !== 0) throw new Error(`workflow save failed: ${saved.stderr}`);
  const params = (JSON.parse(saved.stdout) as { params: Array<{ name: string }>; steps: unknown[] }).params;
  const sets = params.flatMap((param, i) => ['--set', `${param.name}=Value ${i} changed`]);
  log(`recorded ${RECORDED_STEPS} steps (session ${session}); workflow of ${(JSON.parse(saved.stdout) as { steps: unknown[] }).steps.length} steps, ${params.length} parameters`);

  // Unchanged: no model at all.
  await fresh();
  const unchanged = await mnemo(['workflow', 'run', 'bench', ...sets, '--json']);
  if (unchanged.code !== 0) throw new Error(`the unchanged rerun failed: ${unchanged.stderr}`);
  const unchangedReport = unchanged.events.at(-1) as unknown as { modelCalls: number; replayed: number; refound: number };
  const submitted = server.events().filter((e) => e.type === 'submit');
  log(`unchanged: ${unchangedReport.replayed} replayed, ${unchangedReport.refound} found again; submitted ${JSON.stringify(submitted.map((e) => [(e as { field: string }).field, (e as { area: string }).area]))}`);

  // Per step: the rerun's own work, against one capture at the same size.
  const own = unchanged.events
    .filter((e) => e.type === 'step-finished')
    .map((e) => {
      const timings = (e.timings ?? {}) as { act?: number; settle?: number };
      return (e.durationMs as number) - (timings.act ?? 0) - (timings.settle ?? 0);
    });
  const operator = await createIsolatedOperator();
  if (!operator.ok) throw new Error(operator.message);
  const capture = median(
    await timeRuns(15, async () => {
      const observed = await operator.operator.observe({ maxWidth: IMAGE.width, maxHeight: IMAGE.height, format: 'jpeg' });
      if (!observed.ok) throw new Error(observed.message);
    }),
  );
  await operator.operator.close();

  // Moved: the form 150 px to the left; the model stands by for steps nothing else finds.
  const moved = await fresh({ dx: -150, dy: 0 });
  const answers = { field: toImage(centreOf(moved.rects.field)), area: toImage(centreOf(moved.rects.area)), button: toImage(centreOf(moved.rects['btn-center'])) };
  const grounding = await startScriptedServer({
    replies: (request) => {
      const text = JSON.stringify(request.body.messages);
      const which = text.includes(`click at (${field.x}, ${field.y})`) ? 'field' : text.includes(`click at (${area.x}, ${area.y})`) ? 'area' : 'button';
      return tool([{ type: 'click', ...answers[which] }], `The ${which} moved.`);
    },
  });
  const movedRun = await mnemo(['workflow', 'run', 'bench', ...sets, '--policy', 'reground', '--base-url', grounding.url, '--model', 'gpt-4.1', '--family', 'tools', '--json']);
  await grounding.close();
  if (movedRun.code !== 0) throw new Error(`the moved rerun failed: ${movedRun.stderr}`);
  const movedReport = movedRun.events.at(-1) as unknown as { tokens: number; modelCalls: number; refound: number; recording: { tokens: number } };
  log(`moved: ${movedReport.refound} found again, ${movedReport.modelCalls} model calls, ${movedReport.tokens} tokens (the recording: ${movedReport.recording.tokens})`);
  log(`per step: ${median(own).toFixed(0)} ms of the rerun's own work (median of ${own.length} steps), one capture ${capture.toFixed(0)} ms`);

  log(`workflow model calls unchanged: ${unchangedReport.modelCalls}`);
  log(`workflow tokens rerun/recording moved: ${(movedReport.tokens / movedReport.recording.tokens).toFixed(3)}`);
  log(`workflow ms/step ÷ capture: ${(median(own) / capture).toFixed(2)}`);
} finally {
  await kiosk.close();
  await server.close();
  await memoryModel.close();
  openbox?.kill('SIGTERM');
  await rm(root, { recursive: true, force: true });
}
