/**
 * A tool of the MCP server, declared once: its name, what it says to the client, its input and
 * output as zod shapes (the SDK turns them into the JSON schemas the client sees and checks the
 * arguments with them), its annotations, and one function from the checked arguments to an
 * answer. `defineTool` erases the shapes' types, so the registry (tools/index.ts) is a plain list
 * and a new tool is one more entry.
 *
 * An answer is a value (`ok: true`: structuredContent and, as text, the same JSON; extra content
 * such as an image or a resource link) or a failure in words (`isError: true`, optionally with structured content:
 * `act`'s failed ActionResult). A tool never throws for an expected failure.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ToolCall, ToolExtra } from './connection';

export type ToolAnswer<O> =
  | { ok: true; value: O; content?: ContentBlock[] }
  | { ok: false; message: string; value?: O };

type Shape = z.ZodRawShape;
type Output<S extends Shape> = z.output<z.ZodObject<S>>;

export interface McpToolSpec<I extends Shape, O extends Shape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** Changes nothing (the desktop, the records, the memory): offered under `--read-only`. */
  readOnly: boolean;
  /** May do what cannot be taken back (input on the desktop). */
  destructive: boolean;
  /** Reaches beyond Mnemo's own data (the desktop, a model provider). */
  openWorld: boolean;
  call(args: Output<I>, call: ToolCall): Promise<ToolAnswer<Output<O>>>;
}

/** A tool ready to be offered: its name, whether it is read-only, and how it registers on a server. */
export interface McpTool {
  readonly name: string;
  readonly readOnly: boolean;
  register(server: McpServer, callOf: (extra: ToolExtra) => ToolCall): void;
}

/** What the SDK hands a tool's callback besides the arguments. */

export function defineTool<I extends Shape, O extends Shape>(spec: McpToolSpec<I, O>): McpTool {
  return {
    name: spec.name,
    readOnly: spec.readOnly,
    register(server, callOf) {
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          // As plain shapes: the SDK's types of the arguments are its own (the callback takes what it checked).
          inputSchema: spec.input as Shape,
          outputSchema: spec.output as Shape,
          annotations: { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: spec.destructive, openWorldHint: spec.openWorld },
        },
        async (args: unknown, extra: ToolExtra) => toolResult(await spec.call(args as Output<I>, callOf(extra))),
      );
    },
  };
}

export function toolResult<O>(answer: ToolAnswer<O>): CallToolResult {
  if (!answer.ok) {
    return { isError: true, content: [{ type: 'text', text: answer.message }], ...(answer.value !== undefined ? { structuredContent: answer.value as Record<string, unknown> } : {}) };
  }
  // The same JSON as text, for clients that read only content (the protocol asks for it).
  const json: ContentBlock = { type: 'text', text: JSON.stringify(answer.value) };
  return { content: [json, ...(answer.content ?? [])], structuredContent: answer.value as Record<string, unknown> };
}
