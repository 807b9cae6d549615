/**
 * npm run bench:elements — what reading the elements costs beside seeing the screen.
 *   For a form page and a 5,000-node page, each in kiosk Chromium on a private desktop of its own
 *   (1280x800, its own session and accessibility buses):
 *   (a) one screen capture as a step makes it (observe: grab → JPEG 1280 wide, through the
 *       operator host the CLI uses);
 *   (b) a snapshot of the active window (Collection query);
 *   (c) the same snapshot by walking the tree (what an app without Collection costs);
 *   (d) the element under one point (a button's centre) without a snapshot: ElementReader.elementAt,
 *       asked down from the active window (what naming a click's element costs with the aid off).
 * Prints medians and the ratios b/a, c/a, d/a and d/b (target for the form page: b/a ≤ 1, a snapshot costs at
 * most one capture). Then the prompt tokens of one step for the elements aid, off / list / marks:
 * the `tools` family's whole first request built from that capture and a snapshot on its frame,
 * counted with the estimate the memory budgets use (src/main/memory/pruning.ts: text at 3
 * characters a token, the request's JSON without its images; each image 800 tokens), and the
 * time the marks take to draw against the capture.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { openElementReader } from '../src/main/operator/a11y/open-reader';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { DesktopHost } from '../src/main/operator/private-desktop/desktop-host';
import { fmt, median, timeRuns, timeRunsInTurn } from './lib/stats';
import { buildToolsRequest } from '../src/main/model/tools-model';
import { drawElementMarks, withElementMarks } from '../src/main/model/element-marks';
import { aidedElements } from '../src/main/model/element-aid';
import type { ElementSnapshot } from '../src/shared/elements';
import type { ModelImage, PredictInput } from '../src/main/model/types';
import { ModelSettingsSchema } from '../src/shared/settings';
import { DEFAULT_PRUNING_OPTIONS, estimateTextTokens } from '../src/main/memory/pruning';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const FIRST_DISPLAY = Number(process.env.MNEMO_BENCH_PRIVATE_DISPLAY ?? 230);
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic', '--kiosk', '--test-type'];

const FORM = readFileSync(new URL('../test/fixtures/elements/form.html', import.meta.url));

/** 1,000 rows of five elements each (a row, its label, a box, a button, a link): 5,000 nodes. */
function bigPage(): string {
  const rows: string[] = [];
  for (let row = 1; row <= 1000; row++) {
    rows.push(`<div class="row"><span>Item ${row}</span> <input type="checkbox" aria-label="Pick ${row}"> <button>Open ${row}</button> <a href="#r${row}">Details ${row}</a></div>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Big page</title><style>body{margin:0;font:14px sans-serif}.row{height:22px}</style></head><body>${rows.join('')}</body></html>`;
}

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-bench-elements-'));
const server = createServer((request, response) => {
  if (request.method === 'POST') {
    request.resume();
    response.writeHead(204).end();
    return;
  }
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(request.url === '/big' ? bigPage() : FORM);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const env = { ...process.env };
delete env.DBUS_SESSION_BUS_ADDRESS;
delete env.AT_SPI_BUS_ADDRESS;
const host = new DesktopHost({ dataDir: join(scratch, 'data'), firstDisplay: FIRST_DISPLAY, env });

async function measure(label: string, path: string, ready: (names: string[]) => boolean, pointAt: string): Promise<void> {
  const profile = mkdtempSync(join(scratch, 'profile-'));
  const started = await host.start({ size: { width: 1280, height: 800 }, apps: [['chromium', ...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, `${origin}${path}`].join(' ')] });
  if (!started.ok) throw new Error(started.message);
  const desktop = started.desktop;
  const opening = await openElementReader(desktop.env);
  if (!opening.ok) throw new Error(opening.message);
  const reader = opening.opened.reader;
  const operator = await createIsolatedOperator({}, desktop.env);
  if (!operator.ok) throw new Error(operator.message);
  try {
    const deadline = Date.now() + 60_000;
    let target: { x: number; y: number } | undefined;
    for (;;) {
      const taken = await reader.snapshot();
      if (taken.ok && ready(taken.snapshot.elements.map((element) => element.name))) {
        const bounds = taken.snapshot.elements.find((element) => element.name === pointAt)?.bounds;
        if (!bounds) throw new Error(`${label}: no "${pointAt}" to point at`);
        target = { x: Math.floor(bounds.x + bounds.width / 2), y: Math.floor(bounds.y + bounds.height / 2) };
        break;
      }
      if (Date.now() > deadline) throw new Error(`${label}: the page never showed in the tree`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    let shown = 0;
    let walkedCount = 0;
    let pointed = '';
    const point = target as { x: number; y: number };
    const [capture = [], collection = [], walk = [], atPoint = []] = await timeRunsInTurn(RUNS, [
      async () => {
        const observed = await operator.operator.observe({ maxWidth: 1280, format: 'jpeg', quality: 80 });
        if (!observed.ok) throw new Error(observed.message);
      },
      async () => {
        const taken = await reader.snapshot({ budgetMs: 10_000 });
        if (!taken.ok) throw new Error(taken.message);
        shown = taken.snapshot.elements.length;
      },
      async () => {
        const taken = await reader.snapshot({ budgetMs: 10_000, method: 'walk' });
        if (!taken.ok) throw new Error(taken.message);
        walkedCount = taken.snapshot.elements.length;
      },
      async () => {
        const found = await reader.elementAt(point, 10_000);
        if (!found.ok) throw new Error(found.message);
        pointed = found.element ? `${found.element.role} "${found.element.name}" by ${found.method}` : `nothing, by ${found.method}`;
      },
    ]);
    const a = median(capture);
    const b = median(collection);
    const c = median(walk);
    console.log(`${label}`);
    console.log(`  (a) one capture (observe, JPEG 1280 wide)   ${fmt(a)} ms`);
    console.log(`  (b) snapshot, Collection query              ${fmt(b)} ms  (${shown} elements)   b/a = ${(b / a).toFixed(2)}`);
    console.log(`  (c) snapshot, pruned walk                   ${fmt(c)} ms  (${walkedCount} elements)   c/a = ${(c / a).toFixed(2)}`);
    const d = median(atPoint);
    console.log(`  ${`(d) element at a point (${point.x},${point.y})`.padEnd(43)} ${fmt(d)} ms  (${pointed})   d/a = ${(d / a).toFixed(2)}, d/b = ${(d / b).toFixed(2)}`);

    // One step's prompt: the capture the model would get and the snapshot on its frame.
    const observed = await operator.operator.observe({ maxWidth: 1280, format: 'jpeg', quality: 80 });
    if (!observed.ok) throw new Error(observed.message);
    const { frame } = observed.observation;
    const taken = await reader.snapshot({ budgetMs: 10_000, frame });
    if (!taken.ok) throw new Error(taken.message);
    const image: ModelImage = { image: observed.observation.image, mime: frame.image.format === 'png' ? 'image/png' : 'image/jpeg', width: frame.image.width, height: frame.image.height };
    await printPromptTokens(image, taken.snapshot, a);
  } finally {
    await operator.operator.close();
    opening.opened.close();
    await desktop.stop();
  }
}

const TOOLS_SETTINGS = ModelSettingsSchema.parse({ baseUrl: 'http://127.0.0.1:9/v1', model: 'bench-model', family: 'tools' });

/** A request's tokens as the memory budgets estimate them: its JSON without images, at 3 characters a token, plus 800 per image. */
function requestTokens(request: unknown): { tokens: number; images: number } {
  let images = 0;
  const text = JSON.stringify(request, (_key, value: unknown) => {
    if (typeof value === 'string' && value.startsWith('data:image/')) {
      images++;
      return '';
    }
    return value;
  });
  return { tokens: estimateTextTokens(text) + images * DEFAULT_PRUNING_OPTIONS.tokensPerImage, images };
}

async function printPromptTokens(image: ModelImage, snapshot: ElementSnapshot, captureMs: number): Promise<void> {
  const base: PredictInput = { task: 'Fill in the form and submit it', history: [], observation: image };
  const off = requestTokens(buildToolsRequest(base, TOOLS_SETTINGS));
  const list = requestTokens(buildToolsRequest({ ...base, elements: { mode: 'list', snapshot } }, TOOLS_SETTINGS));
  const markedInput = await withElementMarks({ ...base, elements: { mode: 'marks', snapshot } });
  const marks = requestTokens(buildToolsRequest(markedInput, TOOLS_SETTINGS));
  const drawing = median(await timeRuns(RUNS, () => drawElementMarks(image, snapshot)));
  const offered = aidedElements(snapshot).length;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  console.log(`  prompt tokens of one step (tools family, first step; ${offered} interactive of ${snapshot.elements.length} elements${snapshot.truncated ? `, the snapshot cut: ${snapshot.truncated.reason}` : ''}):`);
  console.log(`    off     ${off.tokens}`);
  console.log(`    list    ${list.tokens}  (+${list.tokens - off.tokens}, ×${(list.tokens / off.tokens).toFixed(2)})`);
  console.log(`    marks   ${marks.tokens}  (+${marks.tokens - off.tokens}, ×${(marks.tokens / off.tokens).toFixed(2)}; the image the same size: ${kb(image.image.length)} plain, ${kb(markedInput.observation.image.length)} marked)`);
  console.log(`    drawing the marks ${fmt(drawing)} ms   against one capture ${fmt(captureMs)} ms: ×${(drawing / captureMs).toFixed(2)}`);
}

try {
  console.log(`bench:elements — medians of ${RUNS} runs each, in turn, on private 1280x800 desktops`);
  await measure('form page (test/fixtures/elements/form.html)', '/form', (names) => names.includes('Submit'), 'Submit');
  await measure('5,000-node page (1,000 rows × row, label, box, button, link)', '/big', (names) => names.includes('Open 1'), 'Open 10');
  console.log('tokens: the estimate of src/main/memory/pruning.ts (text 3 characters a token, the request JSON without images; an image 800); the image is the same in all three modes');
} finally {
  server.closeAllConnections();
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}
