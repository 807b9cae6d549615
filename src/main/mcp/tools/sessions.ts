/**
 * The recorded sessions: `list_sessions {search?, limit?}` (newest first, as `mnemo sessions`
 * lists them) and `get_session {id}` (its steps as `mnemo show --json` gives them, without image
 * bytes: each file of the session is a resource link, `mnemo://sessions/<id>/files/<path>`, that
 * the server serves with resources/read).
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SessionListItemSchema } from '../../../shared/app-api';
import { UsageSummarySchema } from '../../../shared/events';
import { listItemOf, shownSessionWithRefs } from '../../service/sessions/session-views';
import type { McpServices } from '../connection';
import { defineTool } from '../tool';
import { RunDesktopSchema } from '../../../shared/desktop';

const FILE_TEMPLATE = 'mnemo://sessions/{id}/files/{+path}';

export function sessionFileUri(sessionId: string, relative: string): string {
  return `mnemo://sessions/${encodeURIComponent(sessionId)}/files/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

const MIME_OF: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', txt: 'text/plain' };
const mimeOf = (path: string) => MIME_OF[path.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';

export const listSessionsTool = defineTool({
  name: 'list_sessions',
  title: 'List sessions',
  description: 'List the recorded sessions (every run, replay and act), newest first: id, task, status, start, steps, cost.',
  input: {
    search: z.string().optional().describe('only sessions whose task or id contains this text'),
    limit: z.number().int().min(1).max(500).optional().describe('at most this many (default 20)'),
  },
  output: { sessions: z.array(SessionListItemSchema) },
  readOnly: true,
  destructive: false,
  openWorld: false,
  call: async ({ search, limit }, call) => {
    const listing = await call.services.service.records.list(search !== undefined ? { search } : {});
    return { ok: true, value: { sessions: listing.sessions.slice(0, limit ?? 20).map(listItemOf) } };
  },
});

const Loose = z.record(z.string(), z.unknown());
const fileRef = z.string().nullable().describe('a resource URI (resources/read serves it), or null');
const StepShape = z.object({
  step: z.number().int(),
  complete: z.boolean(),
  action: Loose.nullable(),
  result: Loose.nullable(),
  thought: z.string().nullable(),
  screenshot: fileRef,
  actions: z.array(Loose),
  results: z.array(Loose),
  errors: z.array(z.object({ kind: z.string(), message: z.string() })),
  notes: z.array(z.string()),
  questions: z.array(z.object({ id: z.number(), kind: z.string(), question: z.string(), answer: z.string().nullable() })),
  durationMs: z.number().nullable(),
  cost: z.number().nullable(),
  usage: UsageSummarySchema.nullable(),
  reply: fileRef,
  fullResolution: fileRef,
});

const SessionShape = {
  id: z.string(),
  task: z.string(),
  status: z.string(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  model: z.string(),
  family: z.string(),
  cost: z.number(),
  usage: UsageSummarySchema.nullable(),
  reason: z.string().nullable(),
  replayOf: z.string().nullable(),
  desktop: RunDesktopSchema.nullable().describe('the desktop the run used (the user display, or a private one with its size and apps); null when the session did not record one'),
  batch: z.object({ id: z.string(), row: z.number().int() }).optional().describe('the batch it is a row of (mnemo batch)'),
  warnings: z.array(z.object({ file: z.string(), line: z.number(), message: z.string() })),
  steps: z.array(StepShape),
};
type SessionOutput = z.output<z.ZodObject<typeof SessionShape>>;

export const getSessionTool = defineTool({
  name: 'get_session',
  title: 'Get a session',
  description:
    'One recorded session and its steps: thought, actions and their results, errors, notes, questions, timing and cost. ' +
    'Screenshots and raw replies are resource links (read them with resources/read), never inline bytes.',
  input: { id: z.string().min(1).describe('a session id, a unique prefix of one, or "last"') },
  output: SessionShape,
  readOnly: true,
  destructive: false,
  openWorld: false,
  call: async ({ id }, call) => {
    const found = await call.services.service.records.session(id);
    if (!found.ok) return { ok: false, message: found.error.message };
    const sessionId = found.value.meta.id;
    // No folder of this machine in the answer: files are named by their URIs.
    const { directory: _directory, ...view } = shownSessionWithRefs(found.value, (relative) => sessionFileUri(sessionId, relative));
    const links: ContentBlock[] = view.steps.flatMap((step) =>
      step.screenshot === null ? [] : [{ type: 'resource_link' as const, uri: step.screenshot, name: `step ${step.step} screenshot`, mimeType: mimeOf(step.screenshot) }],
    );
    // Actions and results are the reader's checked values; their interfaces lack the index signature a record has.
    return { ok: true, value: view as unknown as SessionOutput, content: links };
  },
});

/** Serves the files get_session links to: screenshots (JPEG, PNG) and raw replies (text). */
export function registerSessionFiles(server: McpServer, services: McpServices): void {
  server.registerResource(
    'session-file',
    new ResourceTemplate(FILE_TEMPLATE, { list: undefined }),
    { title: 'A file of a recorded session', description: 'A screenshot or a raw model reply of a session (get_session links to them)' },
    async (uri, variables) => {
      const id = decodeURIComponent(String(variables.id));
      const parts = String(variables.path).split('/').map(decodeURIComponent);
      const file = await services.files.read(id, parts);
      if (!file.ok) throw new Error(file.error.message);
      const mimeType = file.value.contentType.split(';')[0] as string;
      return {
        contents: [mimeType.startsWith('text/') ? { uri: uri.href, mimeType, text: file.value.data.toString('utf8') } : { uri: uri.href, mimeType, blob: file.value.data.toString('base64') }],
      };
    },
  );
}
