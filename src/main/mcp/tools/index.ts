/** The tools the MCP server offers, in the order clients list them. A tool is one entry here and one module beside this one. */
import type { McpTool } from '../tool';
import { actTool } from './act';
import { getBatchTool, runBatchTool } from './batches';
import { saveFactTool, searchFactsTool } from './facts';
import { runTaskTool } from './run-task';
import { screenshotTool } from './screenshot';
import { snapshotTool } from './snapshot';
import { getSessionTool, listSessionsTool } from './sessions';
import { listWorkflowsTool, runWorkflowTool } from './workflows';

export const MCP_TOOLS: readonly McpTool[] = [screenshotTool, actTool, runTaskTool, listSessionsTool, getSessionTool, searchFactsTool, saveFactTool, listWorkflowsTool, runWorkflowTool, runBatchTool, getBatchTool, snapshotTool];

export interface ToolChoice {
  /** Only the tools that change nothing. */
  readOnly?: boolean;
  /** Only these tools (by name). */
  allow?: readonly string[];
}

/** The tools offered: all, the read-only ones, or an allow-list; an unknown name is an error in words. */
export function chooseTools(choice: ToolChoice, tools: readonly McpTool[] = MCP_TOOLS): { ok: true; tools: McpTool[] } | { ok: false; message: string } {
  const names = tools.map((tool) => tool.name);
  const unknown = (choice.allow ?? []).filter((name) => !names.includes(name));
  if (unknown.length > 0) return { ok: false, message: `--tools: no tool ${unknown.map((name) => `"${name}"`).join(', ')} (the tools: ${names.join(', ')})` };
  const chosen = tools.filter((tool) => (!choice.readOnly || tool.readOnly) && (choice.allow === undefined || choice.allow.includes(tool.name)));
  if (chosen.length === 0) return { ok: false, message: `no tool left to offer: --tools ${choice.allow?.join(',')} names none of the read-only tools (${tools.filter((tool) => tool.readOnly).map((tool) => tool.name).join(', ')})` };
  return { ok: true, tools: chosen };
}
