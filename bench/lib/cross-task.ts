/**
 * The cross-task part of bench:context: many tasks of a few steps each, one after another in one
 * data directory and one conversation, through the RunService as the CLI and the app drive it —
 * the real model clients at scripted OpenAI-compatible servers, real files, the fake operator (no
 * display needed). The memory model answers as a real one would be asked to: the conversation's
 * tiers (append, rewrite — worst case: it never condenses, so long-term memory only grows), the
 * task summaries of blackboard compaction, the working memory, the layers' summaries.
 *
 * Measured: the estimated tokens of the system prompt the agent model receives (characters / 3,
 * as the pruning module estimates), at the last step of chosen tasks, with the memory sections of
 * that prompt; and, for scale, what the seed's rendering of the same blackboard would cost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PromptView } from '../../src/shared/memory';
import { openBlackboard, APPEND_TO_SHORT_TERM_MEMORY, REWRITE_MEMORY } from '../../src/main/memory';
import { TASK_SUMMARY_PROMPT } from '../../src/main/memory/blackboard-summaries';
import { estimateTextTokens } from '../../src/main/memory/pruning';
import { startScriptedServer, type RecordedRequest, type ScriptedReply } from '../../test/fixtures/openai-server';
import { serviceOnFakeDisplay } from '../../test/fixtures/fake-display-service';
import { systemText, toolNames, userText } from '../../test/fixtures/openai-server/request-text';
import { systemPrompt } from '../../test/unit/service/service-harness';

export interface CrossTaskPoint {
  task: number;
  systemTokens: number;
  prompt: PromptView | null;
  /** The seed's rendering of the board at that point (every entry), in tokens. */
  seedBoardTokens: number;
}

const CUSTOMERS = ['Acme', 'Borealis', 'Cobalt', 'Dunmore', 'Elbrus', 'Fenwick', 'Galena', 'Harlow', 'Ironbridge', 'Juniper', 'Kestrel', 'Lumen', 'Marlowe'];
const ACTIONS = ['mark it paid', 'attach the receipt', 'send a reminder', 'archive it', 'correct the due date'];

export function taskText(n: number): string {
  return `Open invoice ${1000 + n} of ${CUSTOMERS[n % CUSTOMERS.length]} in the accounting app and ${ACTIONS[n % ACTIONS.length]}`;
}

/** A memory model that answers every kind of memory request the way a real one is asked to. */
function memoryReplies(): (request: RecordedRequest) => ScriptedReply {
  let statements = 0;
  return (request) => {
    const tools = toolNames(request);
    const usage = { prompt_tokens: 400, completion_tokens: 40 };
    if (tools.includes(APPEND_TO_SHORT_TERM_MEMORY)) {
      const task = /Open invoice \d+ of \w+/.exec(userText(request))?.[0] ?? 'an invoice task';
      return { toolCalls: [{ name: APPEND_TO_SHORT_TERM_MEMORY, arguments: { memories: [`the user asked to ${task.toLowerCase()} (statement ${++statements})`] } }], usage };
    }
    if (tools.includes(REWRITE_MEMORY)) {
      // The worst case: nothing condensed, the part shown comes back with the new memories added.
      const text = userText(request);
      const shown = /Memory[^\n]*:\n([^\n]*)/.exec(text)?.[1] ?? '';
      const added = /to incorporate:\n([^\n]*)/.exec(text)?.[1] ?? '';
      const memories = [...shown.split('|'), ...added.split('|')].map((entry) => entry.trim()).filter((entry) => entry !== '');
      return { toolCalls: [{ name: REWRITE_MEMORY, arguments: { memories } }], usage };
    }
    const system = systemText(request);
    if (system.startsWith(TASK_SUMMARY_PROMPT.slice(0, 30))) {
      const task = /Task: (.*)/.exec(userText(request))?.[1] ?? 'a task';
      return { text: `${task}: done in 5 steps (opened the app, found the invoice, changed it, saved, checked the list).`, usage };
    }
    if (system.startsWith('You pick out lasting facts')) return { text: '[]', usage };
    if (system.startsWith('You keep the working memory')) {
      return { text: 'The user works through the invoices of the accounting app one by one; each is opened, changed as asked and saved.', usage };
    }
    return { text: JSON.stringify({ summary: 'Earlier steps: the agent opened the app, found the invoice and changed it as asked.' }), usage };
  };
}

const STEP_THOUGHTS = [
  'The accounting app is open on the dashboard; I open the invoice list.',
  'The list shows the newest invoices; I search for the invoice number.',
  'The invoice is open; I make the change the user asked for.',
  'The change is made; I save the invoice.',
];

export async function runCrossTask(tasks: number, reportAt: readonly number[], onProgress: (task: number) => void): Promise<CrossTaskPoint[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-bench-cross-task-'));
  const memoryServer = await startScriptedServer({ replies: memoryReplies() });
  let step = 0;
  const agentServer = await startScriptedServer({
    replies: (): ScriptedReply => {
      const index = step++ % 5;
      const usage = { prompt_tokens: 1500, completion_tokens: 40 };
      if (index === 4) return { toolCalls: [{ name: 'computer', arguments: { thought: 'The invoice is saved.', actions: [{ type: 'finished', summary: 'Done: the invoice is changed and saved.' }] } }], usage };
      const thought = STEP_THOUGHTS[index] as string;
      return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions: [{ type: 'click', x: 100 + index * 40, y: 200 }] } }], usage };
    },
  });
  const { service } = await serviceOnFakeDisplay({ dataDir, config: { memory: { model: { baseUrl: memoryServer.url } } }, modelUrl: agentServer.url });
  const points: CrossTaskPoint[] = [];
  let conversationId: string | undefined;
  try {
    for (let task = 1; task <= tasks; task++) {
      const started = await service.agentRuns.start({
        task: taskText(task),
        interactive: false,
        skipProviderCheck: true,
        ...(conversationId ? { conversationId } : {}),
        agent: { settle: { intervalMs: 1, timeoutMs: 0, threshold: 0.003 } },
      });
      if (!started.ok) throw new Error(`task ${task}: ${started.error.message}`);
      const handle = started.value;
      conversationId = handle.conversationId ?? undefined;
      let ended: { status: string; reason: string } | undefined;
      for await (const event of handle.events()) if (event.type === 'run-finished') ended = { status: event.status, reason: event.reason };
      await handle.done;
      if (ended?.status !== 'finished') throw new Error(`task ${task} did not finish: ${JSON.stringify(ended)}`);
      if (reportAt.includes(task)) {
        const last = agentServer.requests.at(-1) as RecordedRequest;
        const memory = await service.records.memory(handle.id);
        const { blackboard } = await openBlackboard(dataDir);
        points.push({
          task,
          systemTokens: estimateTextTokens(systemPrompt(last)),
          prompt: memory.ok ? memory.value.prompt : null,
          seedBoardTokens: estimateTextTokens(
            blackboard
              .blackboardToPrompt({ maxImages: 0, maxItems: null })
              .map((part) => (part.type === 'text' ? part.text : ''))
              .join('\n'),
          ),
        });
      }
      onProgress(task);
    }
  } finally {
    await service.close();
    await agentServer.close();
    await memoryServer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return points;
}
