/**
 * Tiered conversation memory against the scripted model server: messages move at the seed's
 * thresholds through `append_to_short_term_memory` and `rewrite_memory` calls, short-term memory is
 * pinned above the chat, a long-term query is answered by the manager, and failures lose nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  APPEND_TO_SHORT_TERM_MEMORY,
  DEFAULT_COMPRESSION_RATIO_CHAT,
  DEFAULT_COMPRESSION_RATIO_STM,
  DEFAULT_MAX_CONVO_LENGTH,
  DEFAULT_SHORT_TERM_MEMORY_LIMIT,
  type MemoryChange,
  QUERY_LONG_TERM_MEMORY_TOOL,
  REWRITE_MEMORY,
  TieredMemory,
} from '../../../src/main/memory';
import { type ScriptedReply } from '../../fixtures/openai-server';
import { memoryModel, serve, toolNames, userText } from './helpers';

function append(...memories: string[]): ScriptedReply {
  return { toolCalls: [{ name: APPEND_TO_SHORT_TERM_MEMORY, arguments: { memories } }] };
}

function rewrite(...memories: string[]): ScriptedReply {
  return { toolCalls: [{ name: REWRITE_MEMORY, arguments: { memories } }] };
}

async function converse(memory: TieredMemory, from: number, to: number): Promise<void> {
  for (let n = from; n <= to; n++) {
    await memory.addMessage({ role: n % 2 === 1 ? 'user' : 'assistant', content: `message ${n}` });
  }
}

describe('defaults', () => {
  it("are the seed's: 10 messages, 10 short-term memories, ratios 0.8", () => {
    expect([DEFAULT_MAX_CONVO_LENGTH, DEFAULT_COMPRESSION_RATIO_CHAT, DEFAULT_SHORT_TERM_MEMORY_LIMIT, DEFAULT_COMPRESSION_RATIO_STM]).toEqual([10, 0.8, 10, 0.8]);
  });
});

describe('chat context to short-term memory', () => {
  it('moves the oldest 80% to the manager when the 11th message arrives', async () => {
    const server = await serve([append('the user wants the Q3 report', 'the report goes to Dana')]);
    const memory = new TieredMemory({}, { model: memoryModel(server.url) });
    await memory.addTask('Send the Q3 report');
    await converse(memory, 2, 10);
    expect(memory.context).toHaveLength(10);
    expect(server.requests).toHaveLength(0);

    const report = await memory.addMessage({ role: 'user', content: 'message 11' });
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(toolNames(request)).toEqual([APPEND_TO_SHORT_TERM_MEMORY]);
    // floor(11 × 0.8) = 8 messages leave.
    expect(userText(request)).toContain(
      'Conversation Section to Summarize:\nuser (task): Send the Q3 report\nassistant: message 2\nuser: message 3\nassistant: message 4\nuser: message 5\nassistant: message 6\nuser: message 7\nassistant: message 8\n\n',
    );
    expect(userText(request)).toContain('Please make a function call to append_to_short_term_memory');
    expect(userText(request)).not.toContain('message 9');
    expect(report).toEqual({ messagesMoved: 8, memoriesMoved: 0, error: null });
    expect(memory.context.map((message) => message.content)).toEqual(['message 9', 'message 10', 'message 11']);
    expect(memory.shortTerm).toEqual(['the user wants the Q3 report', 'the report goes to Dana']);
  });

  it('pins short-term memory above the chat context', async () => {
    const server = await serve([append('the user prefers PDF')]);
    const memory = new TieredMemory({ userName: 'Dana' }, { model: memoryModel(server.url) });
    await converse(memory, 1, 11);
    expect(memory.promptMessages()).toEqual([
      { role: 'system', content: 'Things you remember about Dana:\n- the user prefers PDF' },
      { role: 'user', content: 'message 9' },
      { role: 'assistant', content: 'message 10' },
      { role: 'user', content: 'message 11' },
    ]);
    expect(memory.toPrompt()).toBe('Things you remember about Dana:\n- the user prefers PDF\n\nConversation so far:\nuser: message 9\nassistant: message 10\nuser: message 11');
  });

  it('accepts memories as one "|"-separated string, or as JSON text from a server without tools', async () => {
    const server = await serve([
      { toolCalls: [{ name: APPEND_TO_SHORT_TERM_MEMORY, arguments: { memories: 'fact one| fact two|' } }] },
      { text: '{"memories": ["fact three"]}' },
    ]);
    const memory = new TieredMemory({}, { model: memoryModel(server.url) });
    await converse(memory, 1, 11);
    expect(memory.shortTerm).toEqual(['fact one', 'fact two']);
    await converse(memory, 12, 19);
    expect(memory.shortTerm).toEqual(['fact one', 'fact two', 'fact three']);
  });
});

describe('short-term to long-term memory', () => {
  it('works the oldest 80% into long-term memory when short-term memory passes 10', async () => {
    const server = await serve([
      append('m1', 'm2', 'm3', 'm4'),
      append('m5', 'm6', 'm7', 'm8'),
      append('m9', 'm10', 'm11', 'm12'),
      rewrite('the user is Dana; reports go out on Fridays'),
    ]);
    const memory = new TieredMemory({}, { model: memoryModel(server.url) });
    await converse(memory, 1, 11);
    await converse(memory, 12, 19);
    expect(memory.shortTerm).toHaveLength(8);
    expect(memory.longTerm).toEqual([]);
    expect(server.requests).toHaveLength(2);

    await converse(memory, 20, 26);
    expect(server.requests).toHaveLength(2);
    const report = await memory.addMessage({ role: 'assistant', content: 'message 27' });
    // The third section took short-term memory to 12: floor(12 × 0.8) = 9 went to long-term memory.
    expect(report).toEqual({ messagesMoved: 8, memoriesMoved: 9, error: null });
    expect(server.requests).toHaveLength(4);
    const ltmCall = server.requests[3]!;
    expect(toolNames(ltmCall)).toEqual([REWRITE_MEMORY]);
    expect(userText(ltmCall)).toContain('Full Long Term Memory:\n\n\nNew memory or memories to incorporate:\nm1|m2|m3|m4|m5|m6|m7|m8|m9\n\n');
    expect(memory.longTerm).toEqual(['the user is Dana; reports go out on Fridays']);
    expect(memory.shortTerm).toEqual(['m10', 'm11', 'm12']);
    expect(memory.promptMessages()[0]).toEqual({ role: 'system', content: 'Things you remember about the user:\n- m10\n- m11\n- m12' });
  });

  it('answers a long-term query with the manager’s synthesis, and knows when it knows nothing', async () => {
    const server = await serve([{ text: 'Dana is the user’s manager; reports go to her on Fridays.' }]);
    const memory = new TieredMemory({ userName: 'Sam' }, { model: memoryModel(server.url) });
    const empty = await memory.handleToolCall({ name: QUERY_LONG_TERM_MEMORY_TOOL.name, arguments: '{"hint": "Dana"}' });
    expect(empty).toEqual({ ok: true, answer: "I don't know anything about Dana.", fromModel: false });
    expect(server.requests).toHaveLength(0);

    memory.restore({ context: [], shortTerm: [], longTerm: ['Dana manages Sam', 'weekly reports are due Friday', 'reports go to the manager'] });
    const answer = await memory.handleToolCall({ name: 'query_long_term_memory', arguments: '{"hint": "Dana"}' });
    expect(answer).toEqual({ ok: true, answer: 'Dana is the user’s manager; reports go to her on Fridays.', fromModel: true });
    const request = server.requests[0]!;
    expect(toolNames(request)).toEqual([]);
    expect(userText(request)).toContain('Full Long Term Memory:\nDana manages Sam|weekly reports are due Friday|reports go to the manager\n\nWhat do I know about: Dana?');

    expect(await memory.handleToolCall({ name: 'query_long_term_memory', arguments: '{"topic": 1}' })).toMatchObject({ ok: false });
    expect(await memory.handleToolCall({ name: 'forget_everything', arguments: '{}' })).toEqual({ ok: false, error: 'unknown memory function forget_everything' });
  });
});

describe('a long-term memory of thousands of statements', () => {
  const statements = (count: number) => Array.from({ length: count }, (_, n) => (n === 2345 ? 'Dana keeps the lab printer passwords in the blue binder' : `Dana filed expense claim ${n} for project ${n % 23}`));

  it('is searched, not listed, when the manager is asked about it', async () => {
    const server = await serve([{ text: 'In the blue binder.' }]);
    const memory = new TieredMemory({ userName: 'Dana', longTermCallTokens: 500 }, { model: memoryModel(server.url) });
    memory.restore({ context: [], shortTerm: [], longTerm: statements(5000) });
    const answer = await memory.handleToolCall({ name: QUERY_LONG_TERM_MEMORY_TOOL.name, arguments: '{"hint": "lab printer passwords"}' });
    expect(answer).toEqual({ ok: true, answer: 'In the blue binder.', fromModel: true });
    const sent = userText(server.requests[0]!);
    expect(sent).toMatch(/^Long Term Memory \(the \d+ of 5000 statements related to the question\):\n/);
    expect(sent).toContain('Dana keeps the lab printer passwords in the blue binder');
    // Within the call's share (about 3 characters a token), not the 5,000 statements.
    expect(sent.length).toBeLessThan(500 * 3 + 400);
  });

  it('has only the part related to the new memories rewritten; the rest stays as it was', async () => {
    const server = await serve([append('m1'), append('m2'), append('m3'), rewrite('Dana keeps the lab printer passwords in the blue binder, and the toner in the cupboard')]);
    const memory = new TieredMemory({ userName: 'Dana', longTermCallTokens: 300, shortTermMemoryLimit: 2 }, { model: memoryModel(server.url) });
    const before = statements(3000);
    memory.restore({ context: [], shortTerm: ['the lab printer toner is in the cupboard', 'the lab printer needs toner', 'the lab printer passwords changed'], longTerm: before });
    await converse(memory, 1, 11);
    const rewriteCall = server.requests.find((request) => toolNames(request).includes(REWRITE_MEMORY));
    expect(rewriteCall).toBeDefined();
    expect(userText(rewriteCall!)).toMatch(/^Part of the Long Term Memory \(the \d+ of 3000 statements related to the new memories\):\n/);
    expect(userText(rewriteCall!)).toContain('Dana keeps the lab printer passwords in the blue binder');
    // The statements shown were replaced by the rewrite; every other one is still there.
    expect(memory.longTerm).toContain('Dana keeps the lab printer passwords in the blue binder, and the toner in the cupboard');
    expect(memory.longTerm).not.toContain('Dana keeps the lab printer passwords in the blue binder');
    expect(memory.longTerm.length).toBeGreaterThan(2900);
    expect(memory.longTerm).toContain('Dana filed expense claim 1 for project 1');
  });
});

describe('failures lose nothing and are retried', () => {
  const failures: Array<[string, ScriptedReply, string]> = [
    ['an HTTP 500', { status: 500 }, 'Short-term memory update failed: HTTP 500'],
    ['a timeout', { delayMs: 2_000, ...append('late') }, 'Short-term memory update failed: the model did not answer within 300 ms'],
    ['malformed arguments', { toolCalls: [{ name: APPEND_TO_SHORT_TERM_MEMORY, arguments: '{"memories": [' }] }, 'the arguments of append_to_short_term_memory are not a JSON object'],
    ['a reply without the call', { text: 'Sure, noted.' }, 'the memory manager did not call append_to_short_term_memory'],
    ['the wrong function', rewrite('x'), 'the memory manager called rewrite_memory instead of append_to_short_term_memory'],
  ];

  for (const [name, failure, message] of failures) {
    it(`keeps the chat context after ${name}, then retries with the next message`, async () => {
      const server = await serve([failure, append('kept fact')]);
      const changes: MemoryChange[] = [];
      const memory = new TieredMemory({}, { model: memoryModel(server.url, { timeoutMs: 300 }), onChange: (change) => changes.push(change) });
      await converse(memory, 1, 10);
      const report = await memory.addMessage({ role: 'user', content: 'message 11' });
      expect(report.error).toContain(message);
      expect(memory.lastError).toContain(message);
      expect(memory.context.map((m) => m.content)).toEqual(Array.from({ length: 11 }, (_, i) => `message ${i + 1}`));
      expect(memory.shortTerm).toEqual([]);
      expect(changes.at(-1)).toMatchObject({ kind: 'conversation', compressing: false, lastError: expect.stringContaining(message) });

      await memory.addMessage({ role: 'assistant', content: 'message 12' });
      expect(server.requests).toHaveLength(2);
      // floor(12 × 0.8) = 9: everything the failed call held, and one more.
      expect(userText(server.requests[1]!)).toContain('user: message 1\n');
      expect(userText(server.requests[1]!)).toContain('user: message 9\n\n');
      expect(memory.context.map((m) => m.content)).toEqual(['message 10', 'message 11', 'message 12']);
      expect(memory.shortTerm).toEqual(['kept fact']);
      expect(memory.lastError).toBeNull();
    });
  }

  it('keeps short-term memory over its limit after a failed rewrite, and retries at the next message', async () => {
    const server = await serve([append(...Array.from({ length: 11 }, (_, i) => `f${i + 1}`)), { status: 502 }, rewrite(), rewrite('f1 to f8 condensed')]);
    const memory = new TieredMemory({}, { model: memoryModel(server.url) });
    await converse(memory, 1, 10);
    const first = await memory.addMessage({ role: 'user', content: 'message 11' });
    expect(first.messagesMoved).toBe(8);
    expect(first.error).toContain('Long-term memory update failed: HTTP 502');
    expect(memory.shortTerm).toHaveLength(11);
    expect(memory.longTerm).toEqual([]);

    // An empty rewrite would wipe long-term memory: refused, nothing moves.
    const second = await memory.addMessage({ role: 'assistant', content: 'message 12' });
    expect(second.error).toBe('Long-term memory update failed: rewrite_memory was called with an empty memory');
    expect(memory.shortTerm).toHaveLength(11);

    const third = await memory.addMessage({ role: 'user', content: 'message 13' });
    expect(third).toEqual({ messagesMoved: 0, memoriesMoved: 8, error: null });
    expect(memory.longTerm).toEqual(['f1 to f8 condensed']);
    expect(memory.shortTerm).toEqual(['f9', 'f10', 'f11']);
    expect(memory.context).toHaveLength(5);
  });

  it('without a model, moves nothing and loses nothing', async () => {
    const memory = new TieredMemory();
    await converse(memory, 1, 15);
    expect(memory.context).toHaveLength(15);
    expect(await memory.queryLongTermMemory('anything')).toEqual({ ok: true, answer: "I don't know anything about anything.", fromModel: false });
  });
});

describe('configuration', () => {
  it('uses the limits and ratios given', async () => {
    const server = await serve([append('a', 'b', 'c'), rewrite('abc')]);
    const memory = new TieredMemory({ maxConvoLength: 4, compressionRatioChat: 0.5, shortTermMemoryLimit: 2, compressionRatioStm: 0.5 }, { model: memoryModel(server.url) });
    await converse(memory, 1, 5);
    // floor(5 × 0.5) = 2 messages; then 3 memories > 2: floor(3 × 0.5) = 1 memory to long-term.
    expect(userText(server.requests[0]!)).toContain('user: message 1\nassistant: message 2\n\n');
    expect(memory.context.map((m) => m.content)).toEqual(['message 3', 'message 4', 'message 5']);
    expect(userText(server.requests[1]!)).toContain('New memory or memories to incorporate:\na\n\n');
    expect(memory.shortTerm).toEqual(['b', 'c']);
    expect(memory.longTerm).toEqual(['abc']);
    expect(() => new TieredMemory({ maxConvoLength: 1 })).toThrow(RangeError);
    expect(() => new TieredMemory({ compressionRatioStm: 0 })).toThrow(RangeError);
  });
});
