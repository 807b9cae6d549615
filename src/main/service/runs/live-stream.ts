/**
 * A run's live view as bytes: `multipart/x-mixed-replace` JPEG parts, which an `<img>` shows in
 * any browser, frame after frame. `mnemo serve` writes it to an HTTP response and the Electron
 * shell to its protocol handler, so both windows show the same stream.
 *
 * A slow reader never makes frames pile up: while it has not taken the last part, a newer frame
 * replaces the one waiting, so what it sees next is the screen as it is now.
 */
import type { LiveFrame, LiveFrames } from '../../operator/live-frames';

export const LIVE_BOUNDARY = 'mnemo-live-frame-b6f1c2';
export const LIVE_CONTENT_TYPE = `multipart/x-mixed-replace; boundary=${LIVE_BOUNDARY}`;

const PART_HEAD = `--${LIVE_BOUNDARY}\r\nContent-Type: image/jpeg\r\n\r\n`;

/** The stream's first bytes: the boundary and the headers of the first part. */
export const LIVE_START = Buffer.from(PART_HEAD, 'latin1');

/**
 * One frame: the JPEG, then the boundary and headers of the part after it. A browser finishes a
 * part (and shows the image) only once the next part's headers have come: sent at once, a frame
 * shows at once rather than when the next one comes, which on a still screen may be never. So
 * the parts carry no Content-Length: the boundary alone ends them.
 */
export function livePart(frame: LiveFrame): Buffer {
  return Buffer.concat([frame.jpeg, Buffer.from(`\r\n${PART_HEAD}`, 'latin1')]);
}

/**
 * The bytes of a run's live view: `LIVE_START`, then a part per frame, until the run ends or
 * `signal` aborts (the reader left). Pull-driven: the next part is the newest frame since the
 * last one taken.
 */
export async function* liveParts(frames: LiveFrames, signal: AbortSignal): AsyncGenerator<Buffer> {
  let waiting: LiveFrame | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    wake?.();
    wake = undefined;
  };
  const unwatch = frames.watch({
    frame: (frame) => {
      waiting = frame;
      poke();
    },
    end: () => {
      ended = true;
      poke();
    },
  });
  signal.addEventListener('abort', poke, { once: true });
  try {
    yield LIVE_START;
    for (;;) {
      if (waiting) {
        const frame = waiting;
        waiting = undefined;
        yield livePart(frame);
        continue;
      }
      if (ended || signal.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    unwatch();
    signal.removeEventListener('abort', poke);
  }
}
