/**
 * The desktop for callers that work a step at a time (the MCP server): a screenshot that fits a
 * client's image limits, and one action, launched as a run of one step (run/single-action.ts)
 * through the run service's launcher: the display lock (a run holding the display makes it
 * `busy`, naming the session), the operator's fail-safe, the settings' confirmation rules and the
 * redaction policy, and a session recorded as every run's is.
 */
import { loadSharp } from '../../image/sharp';
import { shownAction, describeAction } from '../../../shared/describe-action';
import type { Action } from '../../../shared/actions';
import type { ElementSnapshot } from '../../../shared/elements';
import type { Frame, Size } from '../../../shared/frame';
import type { IsolatedOperator } from '../../operator/isolated-operator';
import { DEFAULT_SETTLE, waitForSettle } from '../../run/settle';
import { runSingleAction, type ActionBasis } from '../../run/single-action';
import type { RunHandle, RunService } from '../run-service';
import type { ServiceResult } from '../service-result';

/** What an image must fit: its long edge, its pixel count, its encoded size. */
export interface ScreenshotLimits {
  maxLongEdge: number;
  maxPixels: number;
  maxBytes: number;
}

export interface ScreenshotRequest {
  /** A display index; default: the primary display. */
  display?: number;
  limits: ScreenshotLimits;
  /** Wait (bounded) until the screen stops changing first: a screenshot right after an action. */
  settle?: boolean;
}

export interface Screenshot {
  image: Buffer;
  mime: 'image/jpeg';
  /** How the image's pixels map to the screen. */
  frame: Frame;
  /** The display index it shows. */
  display: number;
  /** It is the primary display: the one a run takes when it names none. */
  primary: boolean;
}

export interface ElementsRequest {
  /** The screenshot the elements' `imageBounds` are given on (the client's latest). */
  frame?: Frame;
}

export interface DirectActRequest {
  action: Action;
  /** The snapshot an element action's number is of (`click_element`, `type_into`): the element is read again through its ref. */
  elements?: ElementSnapshot;
  /** What the coordinates are pixels of. */
  basis: ActionBasis;
  /** The display index the action works on, for the lock as runs name it: undefined for the primary display, which runs take when they name none. */
  display?: number;
  /** False: nobody can be asked, so an action that needs a confirmation is refused. */
  interactive: boolean;
}

export interface DirectDesktopDeps {
  service: RunService;
  /** The operator screenshots are taken with (kept open between calls). */
  operator: () => Promise<ServiceResult<IsolatedOperator>>;
}

/** The JPEG quality of a screenshot; then, in turn, those tried when it is over its byte limit, before it is made smaller. */
const QUALITY = 80;
const LOWER_QUALITIES = [65, 50, 40];
const SHRINK = 0.8;
const SMALLEST_EDGE = 64;

export class DirectDesktop {
  constructor(private readonly deps: DirectDesktopDeps) {}

  async screenshot(request: ScreenshotRequest): Promise<ServiceResult<Screenshot>> {
    const operator = await this.deps.operator();
    if (!operator.ok) return operator;
    const index = await this.displayIndex(operator.value, request.display);
    if (!index.ok) return index;
    if (request.settle) await waitForSettle(() => operator.value.fingerprint(index.value.display), DEFAULT_SETTLE);
    const { maxLongEdge, maxPixels, maxBytes } = request.limits;
    const captured = await operator.value.observe({ display: index.value.display, maxWidth: maxLongEdge, maxHeight: maxLongEdge, maxPixels, format: 'jpeg', quality: QUALITY });
    if (!captured.ok) return { ok: false, error: { kind: 'no_display', message: this.deps.service.config.redact(captured.message) } };
    const { image, frame } = captured.observation;
    const fitted = image.length <= maxBytes ? { image, size: frame.image } : await jpegWithin(image, frame.image, maxBytes);
    const { display, primary } = index.value;
    return { ok: true, value: { image: fitted.image, mime: 'image/jpeg', frame: { ...frame, image: { ...fitted.size, format: 'jpeg' } }, display, primary } };
  }

  /**
   * The active window's elements on the user's display (read-only): a snapshot of its
   * accessibility tree, or `unavailable` when there is none to read (no bus, no window).
   */
  async elements(request: ElementsRequest = {}): Promise<ServiceResult<ElementSnapshot>> {
    const { service } = this.deps;
    const open = service.openElements;
    if (!open) return { ok: false, error: { kind: 'unavailable', message: 'this Mnemo reads no accessibility tree (its front end opens none)' } };
    const tree = await open(process.env);
    if (!tree.ok) return { ok: false, error: { kind: 'unavailable', message: service.config.redact(`${tree.message}: elements cannot be read, only pixels`) } };
    try {
      const taken = await tree.source.snapshot(request.frame ? { frame: request.frame } : {});
      return taken.ok ? { ok: true, value: taken.snapshot } : { ok: false, error: { kind: 'unavailable', message: service.config.redact(taken.message) } };
    } finally {
      tree.close();
    }
  }

  /** Launches the action; its handle's events end with run-finished, its action-result among them. */
  async act(request: DirectActRequest): Promise<ServiceResult<RunHandle>> {
    const { service } = this.deps;
    const task = `act: ${describeAction(shownAction(request.action))}`;
    const launched = await service.launcher.launch({
      kind: 'run',
      task,
      redaction: service.config.redaction(),
      session: { model: 'none', family: 'none' },
      display: request.display,
      interactive: request.interactive,
      what: 'the action',
      prepare: async () => ({ ok: true, value: { conversationId: null } }),
      confirmationRules: service.config.loaded.file.agent?.confirmationRules ?? [],
      // Every click named with the element it hit; an element action acts through the tree.
      elements: true,
      engine: (life) => {
        if (request.elements) life.elements?.adopt(request.elements);
        return runSingleAction({ task, action: request.action, basis: request.basis }, life);
      },
    });
    return launched.ok ? launched : { ok: false, error: { ...launched.error, message: service.config.redact(launched.error.message) } };
  }

  /** The index asked for, checked, or the primary display's; and whether it is the primary. */
  private async displayIndex(operator: IsolatedOperator, asked: number | undefined): Promise<ServiceResult<{ display: number; primary: boolean }>> {
    const listed = await operator.displays();
    if (!listed.ok) return { ok: false, error: { kind: 'no_display', message: listed.message } };
    const { displays } = listed;
    const primary = (displays.find((display) => display.primary) ?? displays[0])?.index ?? 0;
    if (asked === undefined) return { ok: true, value: { display: primary, primary: true } };
    if (displays.some((display) => display.index === asked)) return { ok: true, value: { display: asked, primary: asked === primary } };
    return { ok: false, error: { kind: 'settings', message: `no display ${asked}: there ${displays.length === 1 ? 'is 1 display (0)' : `are ${displays.length} displays (0-${displays.length - 1})`}` } };
  }
}

/** A JPEG made to fit `maxBytes`: a lower quality first, then fewer pixels. Never larger than it was. */
export async function jpegWithin(image: Buffer, size: Size, maxBytes: number): Promise<{ image: Buffer; size: Size }> {
  const sharp = await loadSharp();
  let current = { width: size.width, height: size.height };
  for (;;) {
    const resized = current.width !== size.width || current.height !== size.height;
    for (const quality of LOWER_QUALITIES) {
      const pipeline = sharp(image);
      const encoded = await (resized ? pipeline.resize(current.width, current.height, { fit: 'fill' }) : pipeline).jpeg({ quality }).toBuffer();
      if (encoded.length <= maxBytes) return { image: encoded, size: current };
    }
    if (Math.min(current.width, current.height) <= SMALLEST_EDGE) throw new Error(`a ${size.width}x${size.height} screenshot does not fit in ${maxBytes} bytes`);
    current = { width: Math.max(1, Math.floor(current.width * SHRINK)), height: Math.max(1, Math.floor(current.height * SHRINK)) };
  }
}
