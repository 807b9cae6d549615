/**
 * npm run bench:capture — how long it takes to see the screen.
 *   (a) raw libnut grab (nut.ts)
 *   (b) Mnemo's observe in process: grab → model-ready JPEG 1280 px wide
 *   (b') the same observe through the operator host (the isolated operator the CLI uses): the
 *        JPEG is made in the host and crosses the IPC channel
 *   (c) screenshot-desktop + the same resize and encode
 * Prints medians and the ratios b/a, b'/b and c/b (goal: c/b ≥ 2). Runs on a private 1920x1200
 * Xvfb with a busy desktop picture, so the resize is real; falls back to $DISPLAY.
 */
import { spawnSync } from 'node:child_process';
import sharp from 'sharp';
import screenshot from 'screenshot-desktop';
import { createDesktopOperator } from '../src/main/operator/desktop-operator';
import { fitImageSize } from '../src/main/operator/geometry';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { loadNut } from '../src/main/operator/nut';
import { fmt, fmtSigned, median, timeRuns, timeRunsInTurn } from './lib/stats';
import { startPrivateXvfb } from './lib/xvfb';

const RUNS = Number(process.env.BENCH_RUNS ?? 25);

const xvfb = await startPrivateXvfb(1920, 1200);
if (xvfb) process.env.DISPLAY = xvfb.display;
{
  // A patterned root window: JPEG cost depends on content, a flat colour would flatter every path.
  spawnSync('xsetroot', ['-mod', '7', '5', '-fg', '#3a6ea5', '-bg', '#f4e04d'], { env: process.env });
  const loaded = await createDesktopOperator();
  if (!loaded.ok) {
    console.error(`bench:capture: ${loaded.message}`);
    process.exit(1);
  }
  const operator = loaded.operator;
  const nut = await loadNut();
  if (!nut.ok) throw new Error(nut.message);
  const { screen } = nut.nut;
  const isolated = await createIsolatedOperator();
  if (!isolated.ok) {
    console.error(`bench:capture: ${isolated.message}`);
    process.exit(1);
  }

  const grab = await timeRuns(RUNS, () => screen.grab());
  const observeWith = (observer: Pick<typeof operator, 'observe'>) => async () => {
    const result = await observer.observe({ maxWidth: 1280, format: 'jpeg', quality: 80 });
    if (!result.ok) throw new Error(result.message);
  };
  // In turn: the difference between the two is the point, and the machine's load drifts.
  const [observe = [], observeThroughHost = []] = await timeRunsInTurn(RUNS, [observeWith(operator), observeWith(isolated.operator)]);
  const viaScreenshotDesktop = await timeRuns(RUNS, async () => {
    const png = await screenshot({ format: 'png' });
    const image = sharp(png);
    const meta = await image.metadata();
    const size = fitImageSize({ width: meta.width ?? 1, height: meta.height ?? 1 }, { maxWidth: 1280 });
    await image.removeAlpha().resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' }).jpeg({ quality: 80 }).toBuffer();
  });

  const a = median(grab);
  const b = median(observe);
  const c = median(viaScreenshotDesktop);
  const host = median(observeThroughHost);
  const screenSize = `${await screen.width()}x${await screen.height()}`;
  console.log(`display ${process.env.DISPLAY} ${screenSize}, ${RUNS} runs each (medians)`);
  console.log(`(a) libnut grab:                        ${fmt(a)} ms`);
  console.log(`(b) Mnemo observe → JPEG 1280 wide:     ${fmt(b)} ms`);
  console.log(`(b') (b) through the operator host:     ${fmt(host)} ms   (${fmtSigned(host - b)} ms per observation)`);
  console.log(`(c) screenshot-desktop + resize/encode: ${fmt(c)} ms`);
  console.log(`b/a: ${(b / a).toFixed(2)}`);
  console.log(`b'/b: ${(host / b).toFixed(2)} (the operator host's cost)`);
  console.log(`c/b: ${(c / b).toFixed(2)} (goal ≥ 2)`);
  await isolated.operator.close();
}
