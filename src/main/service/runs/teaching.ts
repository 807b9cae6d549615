/**
 * Recording a demonstration: what the user does by hand on their display, as a session whose
 * steps are the user's (src/main/teach/). It goes on until the handle is stopped (`stop()`: Ctrl+C,
 * the app's button) or the user presses ctrl+alt+shift+s; the handle's `id` is the session's, and
 * `done` resolves once it is recorded. A display without the RECORD extension is `no_display`, the
 * message naming the fix.
 */
import { startInputRecording, type InputRecording } from '../../operator/x11/input-recorder';
import { Demonstration, DEMONSTRATION_MODEL } from '../../teach/demonstration';
import type { RecentScreensOptions } from '../../teach/recent-screens';
import type { ElementReader } from '../../operator/a11y/snapshot';
import { TesseractReader } from '../../workflow/ocr';
import type { RunHandle } from './live-run';
import type { Prepared } from './run-launcher';
import type { ServiceResult } from '../service-result';
import type { RecipeParts } from './recipe-parts';

export interface TeachRequest {
  /** What the user will do, in words: the session's task, and the description of a workflow saved from it. */
  task: string;
  /** The display index to record on (its screenshots; the input is the whole X screen's). */
  display?: number;
  /** How often the screen is captured (tests, benchmarks). */
  screens?: Partial<RecentScreensOptions>;
}

/**
 * What a demonstration prepares once its desktop is held: the input recording, the reader of field
 * labels, and the display's accessibility tree when it has one.
 */
interface TeachPrepared extends Prepared {
  recording: InputRecording;
  reader: TesseractReader;
  tree: ElementReader | null;
}

export class Teaching {
  constructor(private readonly deps: Pick<RecipeParts, 'config' | 'launcher'>) {}

  async start(request: TeachRequest): Promise<ServiceResult<RunHandle>> {
    const { config, launcher } = this.deps;
    if (request.task.trim() === '') return { ok: false, error: { kind: 'invalid', message: 'say what you will do: the task is empty' } };
    const display = config.env.DISPLAY?.trim() ?? '';
    if (display === '') return { ok: false, error: { kind: 'no_display', message: 'DISPLAY is not set: a demonstration is recorded on an X display (set DISPLAY, e.g. DISPLAY=:0)' } };
    const image = config.imageSettings();
    const launched = await launcher.launch<TeachPrepared>({
      kind: 'teach',
      task: request.task,
      redaction: config.redaction(),
      session: { ...DEMONSTRATION_MODEL },
      display: request.display,
      interactive: false,
      what: 'the demonstration',
      prepare: async ({ env }) => {
        const recording = await startInputRecording(display, config.env);
        if (!recording.ok) return { ok: false, error: { kind: 'no_display', message: recording.message } };
        const reader = new TesseractReader();
        // No accessibility bus on the display: password fields are told by their labels' words alone.
        // Loaded here, as doctor loads it: D-Bus only for the runs that read a tree.
        const { openElementReader } = await import('../../operator/a11y/open-reader');
        const tree = await openElementReader(env);
        const opened = tree.ok ? tree.opened : null;
        const finish = async () => {
          await recording.value.stop();
          opened?.close();
          await reader.close().catch(() => undefined);
        };
        return { ok: true, value: { conversationId: null, recording: recording.value, reader, tree: opened?.reader ?? null, finish } };
      },
      engine: (life, prepared) =>
        new Demonstration({
          recording: prepared.recording,
          reader: prepared.reader,
          ...(prepared.tree ? { tree: prepared.tree } : {}),
          ...(request.screens ? { screens: request.screens } : {}),
        }).record(
          {
            task: request.task,
            capture: {
              maxWidth: image.maxWidth,
              format: image.format,
              quality: image.quality,
              keepFullResolution: config.storeSettings().keepFullResolution,
              ...(request.display !== undefined ? { display: request.display } : {}),
            },
          },
          life,
        ),
    });
    return config.redacted(launched);
  }
}
