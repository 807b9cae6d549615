/**
 * npm run bench:mcp — what the MCP server's screenshot tool costs: one `screenshot` call through
 * the official SDK's client over stdio (`mnemo mcp` started once, its operator host kept open),
 * against `mnemo screenshot`'s capture alone (one observe in an operator host already running:
 * the baseline, measured in the same run, in turn with the calls), and the bytes each call carries
 * (the JPEG, and the whole tool result as JSON, base64 and all), on a 1280x800 and a 3840x2160
 * screen. Each screen shows the sample session's screenshot (ImageMagick sets it as the root
 * window's background), so the image is not a black screen that compresses to nothing.
 *
 * Private Xvfb displays from :140 (MNEMO_BENCH_XVFB_FIRST), BENCH_RUNS calls each (default 15).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { ensureCliBuilt } from '../scripts/build-cli.js';
import { fmt, median, timeRunsInTurn } from './lib/stats';
import { startPrivateXvfb } from './lib/xvfb';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const MNEMO = fileURLToPath(new URL('../bin/mnemo.js', import.meta.url));
const SAMPLE = fileURLToPath(new URL('../samples/first-session/screenshots/step-0003.jpg', import.meta.url));
const SCREENS = [
  { width: 1280, height: 800 },
  { width: 3840, height: 2160 },
];

const built = await ensureCliBuilt();
if (!built.ok) {
  console.error(`bench:mcp: the CLI does not build:\n${built.message}`);
  process.exit(1);
}
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-bench-mcp-'));

/** Runs a program on `display`; its exit code is not judged (ImageMagick's `display` exits 1 after setting the background). */
function onDisplay(display: string, file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve) => execFile(file, [...args], { env: { ...process.env, DISPLAY: display } }, () => resolve()));
}

interface Figures {
  screen: string;
  image: string;
  call: number;
  capture: number;
  imageBytes: number;
  resultBytes: number;
}

async function measure(screen: { width: number; height: number }): Promise<Figures> {
  const xvfb = await startPrivateXvfb(screen.width, screen.height);
  if (!xvfb) throw new Error('bench:mcp needs Xvfb');
  const background = join(scratch, `background-${screen.width}.png`);
  await sharp(SAMPLE).resize(screen.width, screen.height, { fit: 'fill' }).png().toFile(background);
  await onDisplay(xvfb.display, 'display', ['-window', 'root', background]);

  const env = Object.fromEntries(Object.entries({ ...process.env, DISPLAY: xvfb.display }).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const client = new Client({ name: 'bench-mcp', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MNEMO, 'mcp', '--read-only', '--data-dir', join(scratch, `data-${screen.width}`)], env, stderr: 'ignore' }));
  const host = await createIsolatedOperator({}, env);
  if (!host.ok) throw new Error(host.message);

  let last: CallToolResult | undefined;
  const [calls = [], captures = []] = await timeRunsInTurn(RUNS, [
    async () => {
      last = (await client.callTool({ name: 'screenshot', arguments: {} })) as CallToolResult;
      if (last.isError) throw new Error(JSON.stringify(last.content));
    },
    async () => {
      // What `mnemo screenshot` does once its host is up: its default capture.
      const observed = await host.operator.observe({ maxWidth: 1280, format: 'jpeg' });
      if (!observed.ok) throw new Error(observed.message);
    },
  ]);
  await host.operator.close();
  await client.close();
  const result = last as CallToolResult & { structuredContent: { width: number; height: number } };
  const image = result.content.find((block) => block.type === 'image');
  return {
    screen: `${screen.width}x${screen.height}`,
    image: `${result.structuredContent.width}x${result.structuredContent.height}`,
    call: median(calls),
    capture: median(captures),
    imageBytes: image && 'data' in image ? Buffer.from(image.data, 'base64').length : 0,
    resultBytes: Buffer.byteLength(JSON.stringify(result)),
  };
}

const figures: Figures[] = [];
for (const screen of SCREENS) figures.push(await measure(screen));
rmSync(scratch, { recursive: true, force: true });

console.log(`${RUNS} runs each, in turn (medians); baseline: mnemo screenshot's capture alone, in an operator host already running`);
for (const f of figures) {
  console.log(`${f.screen} screen -> ${f.image} image:`);
  console.log(`  screenshot tool call (stdio, SDK client): ${fmt(f.call)} ms`);
  console.log(`  capture alone (baseline):                 ${fmt(f.capture)} ms`);
  console.log(`  call / capture: ${(f.call / f.capture).toFixed(2)}`);
  console.log(`  bytes per call: ${f.imageBytes} B of JPEG (${(f.imageBytes / 1000).toFixed(0)} KB of 900 KB), ${f.resultBytes} B of tool result as JSON`);
}
process.exit(0);
