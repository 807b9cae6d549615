/**
 * Screen capture: libnut's grab (raw BGRA straight from the X server / OS; the source is called
 * `nut-js`, after the library libnut comes from) encoded by sharp into the model-ready image, with
 * a Frame describing the geometry. screenshot-desktop is the fallback where the grab fails or is
 * not wanted; it is several times slower (it spawns a process and round-trips a PNG).
 */
import { createHash } from 'node:crypto';
import { screenPoint, type ScreenPoint } from '../../shared/actions';
import screenshot from 'screenshot-desktop';
import type { DisplayInfo, Frame, ImageFormat, Rect, Size } from '../../shared/frame';
import { fitImageSize, unionRect, type ImageSizeLimits } from './geometry';
import { loadSharp } from '../image/sharp';
import type { NutModule } from './nut';
import type { ScreenFingerprint } from './screen-diff';

/** Fingerprint size: small enough to compare in microseconds, big enough to see a dialog open. */
const FINGERPRINT_SIZE = { width: 96, height: 60 } as const;

export interface CaptureOptions extends ImageSizeLimits {
  /** A display index, or 'all' for the whole virtual desktop. Default: the primary display. */
  display?: number | 'all';
  format?: ImageFormat;
  /** JPEG quality 1-100. */
  quality?: number;
  /** Also return the capture at full resolution as PNG (for the session record). */
  keepFullResolution?: boolean;
  /** Which capture path: nut-js (libnut's grab, the default) or screenshot-desktop. */
  source?: CaptureSource;
  /**
   * Only this part of the display (logical px of the desktop), e.g. the region a model zooms into:
   * the frame then covers the region, and the image is the region at full resolution unless the
   * size limits make it smaller.
   */
  region?: Rect;
  /** Also read where the pointer is (`Observation.pointer`). */
  pointer?: boolean;
}

export type CaptureSource = 'nut-js' | 'screenshot-desktop';

export const DEFAULT_CAPTURE_OPTIONS = {
  maxWidth: 1280,
  format: 'jpeg',
  quality: 80,
} as const satisfies CaptureOptions;

export interface Observation {
  /** The model-ready image, encoded as `frame.image.format`. */
  image: Buffer;
  frame: Frame;
  /** PNG of the raw capture, when asked for. */
  fullResolution?: Buffer;
  /** The change-detection thumbnail of the same capture (nut-js path), so no second grab is needed. */
  fingerprint?: ScreenFingerprint;
  /** Where the pointer was (logical px of the desktop), when asked for. */
  pointer?: ScreenPoint;
  source: CaptureSource;
  capturedAt: number;
}

/** A frame of the live view: the display as JPEG at its own size, sent only when it changed. */
export type LiveFrameResult =
  | { ok: true; changed: false }
  /** `hash` names the pixels: pass it back to learn whether they changed since. */
  | { ok: true; changed: true; jpeg: Buffer; hash: string; width: number; height: number }
  | { ok: false; message: string; kind?: 'no_display' };

export interface LiveFrameOptions {
  display?: number | 'all';
  /** JPEG quality 1-100. */
  quality: number;
}

export type CaptureResult =
  | { ok: true; observation: Observation }
  /** `no_display`: the display cannot be opened or went away (a run cannot go on). */
  | { ok: false; message: string; kind?: 'no_display' };

export interface RawCapture {
  /** RGBA or RGB pixels, tightly packed. */
  pixels: Buffer;
  channels: 3 | 4;
  size: Size;
}

/**
 * BGRA (alpha 0, as libnut returns it) → RGBA, opaque, in place, 32 bits at a time. Opaque, because
 * libvips premultiplies by alpha when it resizes: with alpha 0 every downscaled capture came out black.
 */
export function bgraToRgbaInPlace(data: Buffer): Buffer {
  const words = new Uint32Array(data.buffer, data.byteOffset, data.byteLength >>> 2);
  for (let i = 0; i < words.length; i++) {
    const v = words[i] as number;
    // Little-endian word: 0xAARRGGBB read from bytes B,G,R,A; swap the B and R bytes, alpha 255.
    words[i] = (v & 0x0000ff00) | ((v & 0xff) << 16) | ((v >>> 16) & 0xff) | 0xff000000;
  }
  return data;
}

/** Copies rows out of a buffer whose rows are padded (byteWidth > width × 4). */
function packRows(data: Buffer, size: Size, byteWidth: number): Buffer {
  const rowBytes = size.width * 4;
  if (byteWidth === rowBytes) return data;
  const packed = Buffer.allocUnsafe(rowBytes * size.height);
  for (let row = 0; row < size.height; row++) data.copy(packed, row * rowBytes, row * byteWidth, row * byteWidth + rowBytes);
  return packed;
}


async function encode(raw: RawCapture, target: Size, format: ImageFormat, quality: number): Promise<Buffer> {
  const sharp = await loadSharp();
  let pipeline = sharp(raw.pixels, { raw: { width: raw.size.width, height: raw.size.height, channels: raw.channels } });
  // No alpha in the image sent on (the grab's is made opaque first: see bgraToRgbaInPlace).
  if (raw.channels === 4) pipeline = pipeline.removeAlpha();
  if (target.width !== raw.size.width || target.height !== raw.size.height) {
    pipeline = pipeline.resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' });
  }
  return format === 'png' ? pipeline.png({ compressionLevel: 6 }).toBuffer() : pipeline.jpeg({ quality, mozjpeg: false }).toBuffer();
}

/**
 * The tiny greyscale thumbnail change detection compares: each cell the mean luma of a grid of
 * samples in its area. Plain JavaScript over the raw pixels (about a millisecond), where a resize
 * by the image library would cost as much as encoding the screenshot.
 */
export function fingerprintOf(raw: RawCapture): ScreenFingerprint {
  const { width, height } = raw.size;
  const { width: cellsX, height: cellsY } = FINGERPRINT_SIZE;
  const pixels = new Uint8Array(cellsX * cellsY);
  const stride = raw.channels;
  const data = raw.pixels;
  for (let cy = 0; cy < cellsY; cy++) {
    const y0 = Math.floor((cy * height) / cellsY);
    const y1 = Math.max(y0 + 1, Math.floor(((cy + 1) * height) / cellsY));
    for (let cx = 0; cx < cellsX; cx++) {
      const x0 = Math.floor((cx * width) / cellsX);
      const x1 = Math.max(x0 + 1, Math.floor(((cx + 1) * width) / cellsX));
      let sum = 0;
      let count = 0;
      // Every other row and column: plenty to see a dialog open, a quarter of the reads.
      for (let y = y0; y < y1; y += 2) {
        let offset = (y * width + x0) * stride;
        for (let x = x0; x < x1; x += 2, offset += 2 * stride) {
          sum += 77 * (data[offset] as number) + 150 * (data[offset + 1] as number) + 29 * (data[offset + 2] as number);
          count++;
        }
      }
      pixels[cy * cellsX + cx] = Math.round(sum / (count * 256));
    }
  }
  return { ...FINGERPRINT_SIZE, pixels };
}

/** The overlap of two rectangles, or null when they do not overlap. */
function intersectRect(a: Rect, b: Rect): Rect | null {
  const left = Math.max(a.x, b.x);
  const top = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > left && bottom > top ? { x: left, y: top, width: right - left, height: bottom - top } : null;
}

function describeRect(rect: Rect): string {
  return `${rect.width}x${rect.height} at (${rect.x}, ${rect.y})`;
}

/** The pixels of `region` (logical px of the desktop) out of a capture of `bounds`, at the capture's resolution. */
export function cropRaw(raw: RawCapture, region: Rect, bounds: Rect): RawCapture {
  const scaleX = raw.size.width / bounds.width;
  const scaleY = raw.size.height / bounds.height;
  const left = Math.max(0, Math.floor((region.x - bounds.x) * scaleX));
  const top = Math.max(0, Math.floor((region.y - bounds.y) * scaleY));
  const width = Math.max(1, Math.min(raw.size.width - left, Math.round(region.width * scaleX)));
  const height = Math.max(1, Math.min(raw.size.height - top, Math.round(region.height * scaleY)));
  const rowBytes = width * raw.channels;
  const pixels = Buffer.allocUnsafe(rowBytes * height);
  for (let row = 0; row < height; row++) {
    const from = ((top + row) * raw.size.width + left) * raw.channels;
    raw.pixels.copy(pixels, row * rowBytes, from, from + rowBytes);
  }
  return { pixels, channels: raw.channels, size: { width, height } };
}

function encodeFullResolution(raw: RawCapture): Promise<Buffer> {
  return encode(raw, raw.size, 'png', 100);
}

export interface CaptureDeps {
  nut: NutModule;
  listDisplays: () => Promise<DisplayInfo[]>;
}

export class ScreenCapture {
  constructor(private readonly deps: CaptureDeps) {}

  /** Captures one display (or all), never throwing: a failure is a message. */
  async capture(options: CaptureOptions = {}): Promise<CaptureResult> {
    const settings = { ...DEFAULT_CAPTURE_OPTIONS, ...options };
    const target = await this.resolveTarget(settings.display);
    if (!target.ok) return target;
    const { bounds, displayId, scaleFactor } = target;
    const capturedAt = Date.now();

    let raw: RawCapture;
    let source: CaptureSource = settings.source ?? 'nut-js';
    try {
      raw = source === 'nut-js' ? await this.grabWithNut(bounds) : await this.grabWithScreenshotDesktop(target.covered, bounds);
    } catch (error) {
      if (source === 'screenshot-desktop') return { ok: false, message: `screen capture failed: ${String(error)}` };
      // The grab can fail on exotic displays; screenshot-desktop takes a different route.
      try {
        source = 'screenshot-desktop';
        raw = await this.grabWithScreenshotDesktop(target.covered, bounds);
      } catch (fallbackError) {
        return { ok: false, message: `screen capture failed: nut-js: ${String(error)}; screenshot-desktop: ${String(fallbackError)}` };
      }
    }

    let area = bounds;
    if (settings.region) {
      const region = intersectRect(settings.region, bounds);
      if (region === null) return { ok: false, message: `the region ${describeRect(settings.region)} is not on the display (${describeRect(bounds)})` };
      raw = cropRaw(raw, region, bounds);
      area = region;
    }
    const imageSize = fitImageSize(raw.size, settings);
    const [image, fullResolution, fingerprint, pointer] = await Promise.all([
      encode(raw, imageSize, settings.format, settings.quality),
      settings.keepFullResolution ? encodeFullResolution(raw) : Promise.resolve(undefined),
      // A region is not the screen: its thumbnail would mislead the repetition check.
      settings.region ? undefined : fingerprintOf(raw),
      settings.pointer ? this.deps.nut.mouse.getPosition().then(({ x, y }) => screenPoint({ x, y })) : undefined,
    ]);
    const frame: Frame = {
      displayId,
      bounds: area,
      scaleFactor,
      captured: raw.size,
      image: { ...imageSize, format: settings.format },
    };
    return {
      ok: true,
      observation: { image, frame, source, capturedAt, ...(fullResolution ? { fullResolution } : {}), ...(fingerprint ? { fingerprint } : {}), ...(pointer ? { pointer } : {}) },
    };
  }

  /**
   * One live-view frame: the display grabbed, and encoded only when its pixels differ from those
   * `previous` names. Every pixel counts (a typed letter, a blinking caret), unlike the loop's
   * change detection: the live view shows what is there.
   */
  async liveFrame(previous: string | undefined, options: LiveFrameOptions): Promise<LiveFrameResult> {
    try {
      const target = await this.resolveTarget(options.display);
      if (!target.ok) return target;
      const raw = await this.grabWithNut(target.bounds);
      const hash = createHash('md5').update(raw.pixels).digest('base64');
      if (hash === previous) return { ok: true, changed: false };
      const jpeg = await encode(raw, raw.size, 'jpeg', options.quality);
      return { ok: true, changed: true, jpeg, hash, ...raw.size };
    } catch (error) {
      return { ok: false, message: `screen capture failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** A tiny greyscale thumbnail of the display, for "did the screen change?" (never throws). */
  async fingerprint(display?: number | 'all'): Promise<ScreenFingerprint | undefined> {
    try {
      const target = await this.resolveTarget(display);
      if (!target.ok) return undefined;
      return fingerprintOf(await this.grabWithNut(target.bounds));
    } catch {
      return undefined;
    }
  }

  private async resolveTarget(
    display: number | 'all' | undefined,
  ): Promise<{ ok: true; bounds: Rect; displayId: string; covered: DisplayInfo[]; scaleFactor: number } | { ok: false; message: string }> {
    const displays = await this.deps.listDisplays();
    if (display === 'all') {
      return {
        ok: true,
        bounds: unionRect(displays.map((d) => d.bounds)),
        displayId: 'all',
        covered: displays,
        scaleFactor: Math.max(...displays.map((d) => d.scaleFactor)),
      };
    }
    const chosen = display === undefined ? (displays.find((d) => d.primary) ?? displays[0]) : displays[display];
    if (!chosen) {
      return { ok: false, message: `no display ${display}: there ${displays.length === 1 ? 'is 1 display' : `are ${displays.length} displays`} (0-${displays.length - 1})` };
    }
    return { ok: true, bounds: chosen.bounds, displayId: chosen.id, covered: [chosen], scaleFactor: chosen.scaleFactor };
  }

  private async grabWithNut(bounds: Rect): Promise<RawCapture> {
    const { screen } = this.deps.nut;
    const [screenWidth, screenHeight] = await Promise.all([screen.width(), screen.height()]);
    const whole = bounds.x === 0 && bounds.y === 0 && bounds.width === screenWidth && bounds.height === screenHeight;
    const grabbed = await screen.grab(whole ? undefined : bounds);
    const size = { width: grabbed.width, height: grabbed.height };
    const pixels = bgraToRgbaInPlace(packRows(grabbed.data, size, grabbed.byteWidth));
    return { pixels, channels: 4, size };
  }

  private async grabWithScreenshotDesktop(displays: readonly DisplayInfo[], bounds: Rect): Promise<RawCapture> {
    const [pngs, sharp] = await Promise.all([Promise.all(displays.map((display) => screenshot({ format: 'png', screen: display.id }))), loadSharp()]);
    if (pngs.length === 1) {
      const { data, info } = await sharp(pngs[0]).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const size = { width: info.width, height: info.height };
      const display = displays[0] as DisplayInfo;
      const expected = { width: Math.round(display.bounds.width * display.scaleFactor), height: Math.round(display.bounds.height * display.scaleFactor) };
      // A display screenshot-desktop does not know by that id comes back as the whole screen:
      // cut the display's own region out of it rather than mislabel the image.
      if ((size.width !== expected.width || size.height !== expected.height) && size.width >= bounds.x + bounds.width && size.height >= bounds.y + bounds.height) {
        const region = await sharp(data, { raw: { ...size, channels: 3 } })
          .extract({ left: bounds.x, top: bounds.y, width: bounds.width, height: bounds.height })
          .raw()
          .toBuffer();
        return { pixels: region, channels: 3, size: { width: bounds.width, height: bounds.height } };
      }
      return { pixels: data, channels: 3, size };
    }
    // Several displays: lay each capture where its display sits in the virtual desktop.
    const size = { width: bounds.width, height: bounds.height };
    const data = await sharp({ create: { ...size, channels: 3, background: { r: 0, g: 0, b: 0 } } })
      .composite(
        displays.map((display, i) => ({
          input: pngs[i] as Buffer,
          left: display.bounds.x - bounds.x,
          top: display.bounds.y - bounds.y,
        })),
      )
      .removeAlpha()
      .raw()
      .toBuffer();
    return { pixels: data, channels: 3, size };
  }
}
