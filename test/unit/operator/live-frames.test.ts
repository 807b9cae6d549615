/**
 * The live view's watcher and its multipart bytes, on a scripted screen: a frame only when the
 * pixels changed, never faster than the frames a second allow, one grab loop however many look,
 * none while nobody looks, and the stream's end with the run.
 */
import { describe, expect, it } from 'vitest';
import type { LiveFrameOptions, LiveFrameResult } from '../../../src/main/operator/capture';
import { LiveFrames, type LiveFrame } from '../../../src/main/operator/live-frames';
import { LIVE_BOUNDARY, LIVE_CONTENT_TYPE, LIVE_START, liveParts } from '../../../src/main/service/runs/live-stream';

/** A screen whose content is a number; each grab is counted. */
function scriptedScreen() {
  const screen = {
    content: 1,
    grabs: 0,
    grabTimes: [] as number[],
    async liveFrame(previous: string | undefined, _options: LiveFrameOptions): Promise<LiveFrameResult> {
      screen.grabs++;
      screen.grabTimes.push(performance.now());
      const hash = String(screen.content);
      if (hash === previous) return { ok: true, changed: false };
      return { ok: true, changed: true, hash, jpeg: Buffer.from(`jpeg-${screen.content}`), width: 640, height: 400 };
    },
  };
  return screen;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('LiveFrames', () => {
  it('sends a frame when the screen changes, none while it is still', async () => {
    const screen = scriptedScreen();
    const frames = new LiveFrames(screen, { fps: 50 });
    const seen: LiveFrame[] = [];
    const unwatch = frames.watch({ frame: (frame) => seen.push(frame), end: () => undefined });
    await until(() => seen.length === 1, 'the first frame');
    const grabsBefore = screen.grabs;
    await until(() => screen.grabs >= grabsBefore + 10, 'ten more grabs of a still screen');
    expect(seen.map((frame) => frame.jpeg.toString())).toEqual(['jpeg-1']);
    screen.content = 2;
    await until(() => seen.length === 2, 'the frame of the change');
    expect(seen[1]?.jpeg.toString()).toBe('jpeg-2');
    expect(seen[1]).toMatchObject({ width: 640, height: 400 });
    unwatch();
    frames.close();
  });

  it('never grabs faster than its frames a second, even when every grab differs', async () => {
    const screen = scriptedScreen();
    const frames = new LiveFrames({ liveFrame: (previous, options) => ((screen.content += 1), screen.liveFrame(previous, options)) }, { fps: 20 });
    let count = 0;
    frames.watch({ frame: () => count++, end: () => undefined });
    await until(() => count >= 8, 'eight frames');
    frames.close();
    const gaps = screen.grabTimes.slice(1).map((time, i) => time - (screen.grabTimes[i] as number));
    // 20 a second: each grab starts at least 50 ms after the one before. The times here are taken a
    // moment after the loop's own (a garbage collection or a busy machine can come in between), so
    // one gap may look a few ms short; over the whole run the pace shows whole: never more than 20 a second.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(40);
    const span = (screen.grabTimes.at(-1) as number) - (screen.grabTimes[0] as number);
    expect(span).toBeGreaterThanOrEqual(50 * gaps.length - 5);
  });

  it('one grab loop for every viewer; a late viewer gets the latest frame at once; nobody looking, no grab', async () => {
    const screen = scriptedScreen();
    const frames = new LiveFrames(screen, { fps: 50 });
    const a: string[] = [];
    const b: string[] = [];
    const stopA = frames.watch({ frame: (frame) => a.push(frame.jpeg.toString()), end: () => undefined });
    await until(() => a.length === 1, 'the first frame');
    const stopB = frames.watch({ frame: (frame) => b.push(frame.jpeg.toString()), end: () => undefined });
    expect(b).toEqual(['jpeg-1']);
    screen.content = 7;
    await until(() => a.length === 2 && b.length === 2, 'the change, for both');
    stopA();
    stopB();
    const grabs = screen.grabs;
    // The loop notices within one interval that nobody looks, then grabs no more.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const settled = screen.grabs;
    expect(settled - grabs).toBeLessThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.grabs).toBe(settled);
    frames.close();
  });

  it('close ends every viewer, and a viewer that comes later at once', () => {
    const frames = new LiveFrames(scriptedScreen());
    const ended: string[] = [];
    frames.watch({ frame: () => undefined, end: () => ended.push('first') });
    frames.close();
    frames.watch({ frame: () => undefined, end: () => ended.push('late') });
    expect(ended).toEqual(['first', 'late']);
  });
});

describe('the multipart stream', () => {
  it('opens the first part, sends each frame followed by the next part\'s headers, and stops with the run', async () => {
    expect(LIVE_CONTENT_TYPE).toBe(`multipart/x-mixed-replace; boundary=${LIVE_BOUNDARY}`);
    const screen = scriptedScreen();
    const frames = new LiveFrames(screen, { fps: 50 });
    const chunks: string[] = [];
    const reading = (async () => {
      for await (const part of liveParts(frames, new AbortController().signal)) chunks.push(part.toString('latin1'));
    })();
    await until(() => chunks.length === 2, 'the first frame');
    screen.content = 2;
    await until(() => chunks.length === 3, 'the second frame');
    frames.close();
    await reading;
    const head = `--${LIVE_BOUNDARY}\r\nContent-Type: image/jpeg\r\n\r\n`;
    expect(chunks).toEqual([LIVE_START.toString('latin1'), `jpeg-1\r\n${head}`, `jpeg-2\r\n${head}`]);
    expect(LIVE_START.toString('latin1')).toBe(head);
  });

  it('a slow reader gets the newest frame, not a queue of old ones', async () => {
    const screen = scriptedScreen();
    const frames = new LiveFrames(screen, { fps: 100 });
    const stop = new AbortController();
    const parts = liveParts(frames, stop.signal)[Symbol.asyncIterator]();
    await parts.next(); // the opening
    expect((await parts.next()).value?.toString('latin1')).toMatch(/^jpeg-1/);
    // While the reader does not read, the screen changes three times.
    for (const content of [2, 3, 4]) {
      screen.content = content;
      const grabs = screen.grabs;
      await until(() => screen.grabs > grabs + 1, `the change to ${content} seen`);
    }
    expect((await parts.next()).value?.toString('latin1')).toMatch(/^jpeg-4/);
    stop.abort();
    expect((await parts.next()).done).toBe(true);
    frames.close();
  });
});
