/**
 * Where a run works: the user's own display, or a private X display Mnemo starts for it (a size
 * and the apps to start in it). The same shape travels in the HTTP API, the IPC contract, the
 * session record (so a replay can start the same desktop again) and the settings' defaults.
 */
import { z } from 'zod';
import type { Size } from './frame';
import { DEFAULT_DESKTOP_SIZE, formatDesktopSize, parseDesktopSize } from './desktop-size';

const SizeTextSchema = z.string().superRefine((text, ctx) => {
  const parsed = parseDesktopSize(text);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
});

const AppCommandSchema = z.string().trim().min(1, 'an app command is empty');

/** What a front end asks for: `{"private": true, "size": "WxH", "apps": ["CMD", …]}`. */
export const DesktopRequestSchema = z.object({
  private: z.boolean().describe('true: a private display started for the run; false: the user display'),
  size: SizeTextSchema.optional().describe('the private display size, WxH (default 1280x800, or the settings)'),
  apps: z.array(AppCommandSchema).max(16, 'at most 16 apps').optional().describe('commands to start on the private display, each waited for until its window shows'),
});
export type DesktopRequest = z.infer<typeof DesktopRequestSchema>;

/** The desktop a run ran on, as its session records it and the live runs list shows it. */
export const RunDesktopSchema = z.discriminatedUnion('private', [
  z.object({
    private: z.literal(false),
    /** The user's display as its lock names it: DISPLAY, with the display index when one was chosen (`:0`, `:0 display 1`). */
    display: z.string(),
  }),
  z.object({
    private: z.literal(true),
    size: SizeTextSchema,
    apps: z.array(z.string()),
    /** The X display it got (`:201`); another one next time. */
    display: z.string(),
  }),
]);
export type RunDesktop = z.infer<typeof RunDesktopSchema>;

/** `desktop` in config.json: the defaults of the Run form and of `--desktop private`, and how private desktops start. */
export const DesktopSettingsSchema = z
  .object({
    /** New runs start on a private desktop (the Run form's switch starts on). */
    private: z.boolean().default(false),
    size: SizeTextSchema.default(formatDesktopSize(DEFAULT_DESKTOP_SIZE)),
    /** The apps a private desktop starts when a run names none. */
    apps: z.array(AppCommandSchema).default([]),
    /** The first X display number a private desktop tries (the next free one is taken). */
    firstDisplay: z.number().int().min(1).max(60_000).default(200),
    /** The window manager of private desktops; null for none; absent: openbox when it is installed. */
    windowManager: z.string().min(1).nullable().optional(),
    /** How long an app may take to show its window, in ms. */
    appTimeoutMs: z.number().int().positive().default(60_000),
    /** Frames a second of the live view, at most. */
    liveFps: z.number().positive().max(30).default(5),
  })
  .strict();
export type DesktopSettings = z.output<typeof DesktopSettingsSchema>;

/** A private desktop to start: its size and apps. */
export interface PrivateDesktopSpec {
  size: Size;
  apps: string[];
}

/** The private desktop a request asks for, the settings' defaults filling what it leaves out; null for the user's display. */
export function privateDesktopOf(request: DesktopRequest | undefined, defaults: Pick<DesktopSettings, 'size' | 'apps'>): PrivateDesktopSpec | null {
  if (!request?.private) return null;
  // Both sizes passed their schema: only a bug could make this fail.
  const size = parseDesktopSize(request.size ?? defaults.size);
  if (!size.ok) throw new Error(size.message);
  return { size: size.size, apps: [...(request.apps ?? defaults.apps)] };
}
