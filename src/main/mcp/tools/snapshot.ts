/**
 * `snapshot {}`: the active window's elements, read from the accessibility tree (read-only), as
 * Playwright MCP gives a page's: each with a ref (`s3e12`: element 12 of this connection's
 * snapshot 3), its role, name, value (never a password's), states and box, in screen pixels and,
 * after a screenshot, in that screenshot's pixels. `act` takes a ref of the latest snapshot
 * (`click_element`, `type_into`); a ref of an older snapshot, or of an element the tree no longer
 * has, is refused.
 */
import { z } from 'zod';
import type { Element, ElementSnapshot } from '../../../shared/elements';
import type { ConnectionState, ToolCall } from '../connection';
import { defineTool, type ToolAnswer } from '../tool';

const RectShape = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

const SnapshotOutput = {
  snapshot: z.number().int().describe("this snapshot's number in the session: refs are tied to it"),
  window: z.object({ app: z.string(), role: z.string(), name: z.string(), bounds: RectShape }).describe('the active window the elements are of'),
  elements: z
    .array(
      z.object({
        ref: z.string().describe('what act takes as "ref" (click_element, type_into), until the next snapshot'),
        role: z.string(),
        name: z.string(),
        nameFrom: z.literal('label').optional().describe('"label": the tree gives the element no name; this one is the label beside it'),
        value: z.string().optional().describe('what it holds; never for a password field'),
        states: z.array(z.string()),
        bounds: RectShape.describe('screen pixels'),
        imageBounds: RectShape.optional().describe('pixels of the latest screenshot of this session'),
        interactive: z.boolean(),
      }),
    )
    .describe('in reading order'),
  truncated: z.object({ reason: z.enum(['time', 'count']), limit: z.number() }).optional().describe('cut short: it took too long or held too many elements'),
};
type Output = z.output<z.ZodObject<typeof SnapshotOutput>>;

/** The ref a client gets for element `n` of the connection's snapshot `id`. */
export function mcpRef(id: number, n: number): string {
  return `s${id}e${n}`;
}

/** The element a ref names in the connection's latest snapshot, or why it cannot be used. */
export function elementOfRef(state: ConnectionState, ref: string): { ok: true; snapshot: ElementSnapshot; element: Element } | { ok: false; message: string } {
  const parsed = /^s(\d+)e(\d+)$/.exec(ref.trim());
  if (!parsed) return { ok: false, message: `"${ref}" is not an element ref (a snapshot gives refs such as "s1e4")` };
  const latest = state.elements;
  if (!latest) return { ok: false, message: `no snapshot in this session yet: call snapshot first, then use a ref it gives` };
  const id = Number(parsed[1]);
  if (id !== latest.id) return { ok: false, message: `the ref ${ref} is stale: it is of snapshot ${id}, and the latest is snapshot ${latest.id}; use a ref of the latest snapshot` };
  const element = latest.snapshot.elements.find((candidate) => candidate.n === Number(parsed[2]));
  if (!element) return { ok: false, message: `snapshot ${id} has no element ${parsed[2]} (it has ${latest.snapshot.elements.length})` };
  return { ok: true, snapshot: latest.snapshot, element };
}

async function snapshot(call: ToolCall): Promise<ToolAnswer<Output>> {
  const latestShot = call.state.latest;
  const taken = await call.services.desktop.elements(latestShot ? { frame: latestShot.frame } : {});
  if (!taken.ok) return { ok: false, message: taken.error.message };
  const id = (call.state.elements?.id ?? 0) + 1;
  call.state.elements = { id, snapshot: taken.value };
  const { window, elements, truncated } = taken.value;
  return {
    ok: true,
    value: {
      snapshot: id,
      window: { app: window.app, role: window.role, name: window.name, bounds: window.bounds },
      elements: elements.map(({ n, ref: _ref, ...element }) => ({ ref: mcpRef(id, n), ...element })),
      ...(truncated ? { truncated } : {}),
    },
  };
}

export const snapshotTool = defineTool({
  name: 'snapshot',
  title: 'Elements of the active window',
  description:
    "Read the active window's elements from the accessibility tree: role, name, value (never a password's), states and box (screen pixels, and " +
    'pixels of the latest screenshot when there is one), each with a ref. act takes a ref of the latest snapshot: {"type":"click_element","ref":"s1e4"}, ' +
    '{"type":"type_into","ref":"s1e5","text":"Ada"}. A ref of an older snapshot, or of an element that is gone, is refused: take a new snapshot.',
  input: {},
  output: SnapshotOutput,
  readOnly: true,
  destructive: false,
  openWorld: false,
  call: (_args, call) => snapshot(call),
});
