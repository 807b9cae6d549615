/**
 * Records what the user does on an X display: the device events of every client (the keyboard,
 * the pointer, and XTEST's fake input too) through the RECORD extension (record.ts), with the
 * keyboard layout active when it starts, so keycodes read as the characters the user saw.
 *
 * Two connections, as RECORD asks: a control one (the layout, creating, disabling and freeing
 * the context) and a data one, whose EnableContext request is answered by replies until the
 * context is disabled. A server without RECORD is a value naming the fix, never a crash.
 */
import { readLayoutSource, xkbOpcode } from '../keyboard/x11-keyboard';
import type { LayoutSource } from '../keyboard/layout';
import { X11Connection, type Opened } from './connection';
import { queryExtension } from './requests';
import {
  createContextRequest,
  decodeRecordReply,
  disableContextRequest,
  enableContextRequest,
  freeContextRequest,
  queryVersionRequest,
  RecordCategory,
  type DeviceEvent,
} from './record';

/** Where recorded events go (an async queue fits). */
export interface EventSink {
  push(event: DeviceEvent): void;
  close(): void;
}

export interface InputRecording {
  /** The keyboard layout when the recording started. */
  readonly layout: LayoutSource;
  /** The display's root window size. */
  readonly screen: { width: number; height: number } | null;
  /**
   * Starts delivering the device events to `sink` as they come (nothing is intercepted before),
   * until `stop()` or the connection's end, when the sink is closed.
   */
  begin(sink: EventSink): void;
  /** Why the recording ended by itself (the display went away); null while it runs or after stop(). */
  readonly failure: string | null;
  /** Disables the context; the events end once the server has sent what it had. */
  stop(): Promise<void>;
}

/** The fix for a server without RECORD, named in the message. */
export const RECORD_FIX =
  'start the X server with the RECORD extension (Xvfb and Xorg: +extension RECORD; in xorg.conf: Section "Module" Load "record")';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function startInputRecording(display: string, env: NodeJS.ProcessEnv = process.env): Promise<Opened<InputRecording>> {
  const control = await X11Connection.open(display, env);
  if (!control.ok) return control;
  const data = await X11Connection.open(display, env);
  if (!data.ok) {
    control.value.close();
    return data;
  }
  const closeBoth = () => {
    control.value.close();
    data.value.close();
  };
  try {
    const opcode = await queryExtension(control.value, 'RECORD');
    if (opcode === undefined) {
      closeBoth();
      return { ok: false, message: `the X server on ${display} has no RECORD extension, so what you do cannot be recorded: ${RECORD_FIX}` };
    }
    await control.value.request(queryVersionRequest(opcode));
    const layout = await readLayoutSource(control.value, await xkbOpcode(control.value));
    const context = control.value.newId();
    control.value.send(createContextRequest(opcode, context));
    const [refused] = await control.value.sync();
    if (refused) {
      closeBoth();
      return { ok: false, message: `the X server on ${display} refused a RECORD context (X error ${refused.code})` };
    }
    return { ok: true, value: new Recording(control.value, data.value, opcode, context, layout) };
  } catch (error) {
    closeBoth();
    return { ok: false, message: `cannot record the input on ${display}: ${messageOf(error)}` };
  }
}

class Recording implements InputRecording {
  private sink: EventSink | null = null;
  readonly screen: { width: number; height: number } | null;
  private failed: string | null = null;
  private stopping: Promise<void> | null = null;
  private ended: Promise<void> = Promise.resolve();

  constructor(
    private readonly control: X11Connection,
    private readonly data: X11Connection,
    private readonly opcode: number,
    private readonly context: number,
    readonly layout: LayoutSource,
  ) {
    this.screen = control.screen ? { width: control.screen.width, height: control.screen.height } : null;
  }

  begin(sink: EventSink): void {
    if (this.stopping) return sink.close();
    this.sink = sink;
    // The stream holds the process open until it ends: started only once it is wanted, so a
    // recording never begun (a launch that failed after it) leaves nothing behind.
    this.ended = this.data
      .stream(enableContextRequest(this.opcode, this.context), (reply) => {
        const { category, events } = decodeRecordReply(reply);
        for (const event of events) sink.push(event);
        return category === RecordCategory.endOfData;
      })
      .catch((error: unknown) => {
        if (!this.stopping) this.failed = `the recording of the input ended: ${messageOf(error)}`;
      })
      .finally(() => sink.close());
  }

  get failure(): string | null {
    return this.failed;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      try {
        this.control.send(disableContextRequest(this.opcode, this.context));
        await this.control.sync();
        // The end-of-data reply closes the stream; a server that never sends it must not hold us.
        await Promise.race([this.ended, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
        this.control.send(freeContextRequest(this.opcode, this.context));
        await this.control.sync();
      } catch {
        // The display is gone: nothing left to disable.
      } finally {
        this.control.close();
        this.data.close();
        this.sink?.close();
      }
    })();
    return this.stopping;
  }
}
