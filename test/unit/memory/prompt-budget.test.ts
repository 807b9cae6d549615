/**
 * The memory sections of the system prompt stay within their budgets however much memory there
 * is: a blackboard of thousands of tasks, a long-term memory of thousands of statements. What bears
 * on the task is shown (the most recent entries, and the old ones a ranked search finds when the
 * task names them); what is left out is counted and said. Real data structures, no doubles.
 */
import { describe, expect, it } from 'vitest';
import type { BlackboardDict, MemoryItemData } from '../../../src/shared/memory';
import { applyLineSplices, lineSplices } from '../../../src/shared/line-splices';
import { Blackboard, TieredMemory } from '../../../src/main/memory';
import { renderBlackboardSection, TASK_END_KIND, TASK_SUMMARY_KIND } from '../../../src/main/memory/blackboard-prompt';
import { renderConversationSection } from '../../../src/main/memory/conversation-prompt';
import { summaryFromReply, tasksToSummarise } from '../../../src/main/memory/blackboard-summaries';
import { textSection, tokensOf } from '../../../src/main/memory/prompt-section';

const CITIES = ['Lisbon', 'Oslo', 'Quito', 'Hanoi', 'Perth', 'Dakar', 'Tallinn', 'Cusco'];

/** A board as years of use leave it: `tasks` tasks, each with a request, steps, an end, most with a summary. */
function boardOf(tasks: number, special?: { at: number; request: string; summary: string }): BlackboardDict {
  const board: BlackboardDict = { questions: [], requests: [], trajectories: [], screenshots: [] };
  for (let n = 1; n <= tasks; n++) {
    const id = `task-${n}`;
    const isSpecial = special?.at === n;
    const request = isSpecial ? special.request : `Book a train ticket to ${CITIES[n % CITIES.length]} for trip ${n}`;
    board.requests.push({ request, task_id: id });
    for (let step = 1; step <= 4; step++) board.trajectories.push({ step, subtask: `step ${step} of trip ${n}`, action: 'click', status: 'success', task_id: id });
    if (n % 10 === 0) board.questions.push({ question: `Window or aisle for trip ${n}?`, answer: 'aisle', task_id: id });
    board.trajectories.push({ kind: TASK_END_KIND, status: 'finished', outcome: `Booked trip ${n}.`, task_id: id });
    if (n % 3 !== 0) board.trajectories.push({ kind: TASK_SUMMARY_KIND, task_id: id, summary: isSpecial ? special.summary : `Booked the train to ${CITIES[n % CITIES.length]} for trip ${n}, seat in the aisle.`, status: 'finished', steps: 4 });
  }
  return board;
}

describe('the blackboard section', () => {
  it.each([1, 100, 5000])('stays within its budget with %i tasks on the board, and says how much more there is', (tasks) => {
    const board = boardOf(tasks);
    for (const budget of [200, 600, 1500]) {
      const section = renderBlackboardSection(board, 'Book a train ticket to Oslo', null, budget);
      expect(section.usedTokens).toBe(tokensOf(section.text));
      expect(section.usedTokens).toBeLessThanOrEqual(budget);
      expect(section.shown + section.omitted).toBe(tasks + Math.floor(tasks / 10));
      if (section.omitted > 0) expect(section.text).toMatch(new RegExp(`\\(${section.omitted} older blackboard entr(y is|ies are) not shown: .*They are kept`));
    }
    const wide = renderBlackboardSection(board, 'anything', null, 1_000_000);
    expect(wide.omitted).toBe(0);
  });

  it('shows the most recent tasks, one line each (the summary when there is one)', () => {
    const section = renderBlackboardSection(boardOf(5000), 'Something unrelated', null, 600);
    expect(section.text).toContain('Booked the train to Cusco for trip 4999, seat in the aisle. [finished]');
    // Trip 4998 has no summary yet (every third): its plain line says what was asked and how it ended.
    expect(section.text).toContain('"Book a train ticket to Tallinn for trip 4998" → finished: Booked trip 4998. (4 steps; last: step 4 of trip 4998)');
    expect(section.text).not.toContain('step 2 of trip 4999');
    expect(section.text).not.toContain('trip 12,');
  });

  it('finds the old entry the task names, among thousands', () => {
    const board = boardOf(5000, { at: 37, request: 'Send the Zephyrine Holdings tax form to Dana', summary: 'Sent the Zephyrine Holdings tax form to Dana by mail; she wants a paper copy too.' });
    const section = renderBlackboardSection(board, 'Print another copy of the Zephyrine Holdings tax form', null, 600);
    expect(section.text).toContain('Sent the Zephyrine Holdings tax form to Dana by mail; she wants a paper copy too.');
    expect(section.usedTokens).toBeLessThanOrEqual(600);
    const unrelated = renderBlackboardSection(board, 'Book a train ticket', null, 600);
    expect(unrelated.text).not.toContain('Zephyrine');
  });

  it('finds an old question and its answer when the task names it: questions stay searchable', () => {
    const board = boardOf(4000);
    board.questions.splice(3, 0, { question: 'Which tray holds the letterhead paper?', answer: 'the lower tray, always', task_id: 'task-35' });
    const section = renderBlackboardSection(board, 'Print the letter on letterhead paper', null, 600);
    expect(section.text).toContain('Q: Which tray holds the letterhead paper? → A: the lower tray, always');
    expect(section.usedTokens).toBeLessThanOrEqual(600);
  });

  it("keeps the current task's questions and leaves its steps to the layers", () => {
    const board = boardOf(50);
    board.requests.push({ request: 'Book a flight to Reykjavik', task_id: 'now' });
    board.questions.push({ question: 'Which airline do you prefer?', answer: 'Icelandair', task_id: 'now' });
    board.trajectories.push({ step: 1, subtask: 'opened the booking site', action: 'click', status: 'success', task_id: 'now' });
    const section = renderBlackboardSection(board, 'Book a flight to Reykjavik', 'now', 300);
    expect(section.text).toContain('Q: Which airline do you prefer? → A: Icelandair');
    expect(section.text).not.toContain('opened the booking site');
    expect(section.text).not.toContain('Book a flight to Reykjavik');
  });

  it('renders boards written before tasks had ids, within the budget', () => {
    const board: BlackboardDict = {
      questions: Array.from({ length: 400 }, (_, n) => ({ question: `Question ${n}?`, answer: `answer ${n}` })),
      requests: Array.from({ length: 2000 }, (_, n) => ({ request: `Old request number ${n}` })),
      trajectories: Array.from({ length: 8000 }, (_, n) => ({ step: n, subtask: `old step ${n}`, action: 'type', status: 'success' })),
      screenshots: [{ metadata: { step: 3 }, image_path: 'shot-3.png' }],
    };
    const section = renderBlackboardSection(board, 'Old request number 1234', null, 500);
    expect(section.usedTokens).toBeLessThanOrEqual(500);
    expect(section.text).toContain('Old request number 1234');
    expect(section.text).toContain('old step 7999');
    expect(section.leftOut).toMatch(/\d+ steps, \d+ questions, \d+ requests/);
  });
});

describe('the conversation section', () => {
  function conversationWith(longTerm: number): TieredMemory {
    const memory = new TieredMemory({ userName: 'Dana' });
    memory.restore({
      context: Array.from({ length: 10 }, (_, n) => ({ role: n % 2 ? 'assistant' : 'user', content: `message ${n} ${'about the weekly report '.repeat(n === 9 ? 400 : 1)}`, kind: n % 2 ? ('message' as const) : ('task' as const) })),
      shortTerm: Array.from({ length: 10 }, (_, n) => `Dana asked for report ${n}`),
      longTerm: Array.from({ length: longTerm }, (_, n) => (n === 1234 ? 'Dana keeps the passwords of the lab printers in the blue binder' : `Dana filed expense claim ${n} for project ${n % 17}`)),
    });
    return memory;
  }

  it('stays within its budget with thousands of long-term memories and a very long message, and searches them', () => {
    const memory = conversationWith(5000);
    const section = renderConversationSection(memory, 'Print the lab printers test page', 400);
    expect(section.usedTokens).toBeLessThanOrEqual(400);
    expect(section.text).toContain('Dana keeps the passwords of the lab printers in the blue binder');
    expect(section.text).toContain('message 9 about the weekly report');
    expect(section.text).toContain('[…]');
    expect(section.text).toMatch(/\(Not shown: .*\d+ long-term memories\. Ask for what you need with query_long_term_memory\.\)/);
    expect(section.text).not.toContain('expense claim 4321 ');
  });

  it('shows everything when it fits', () => {
    const memory = new TieredMemory({ userName: 'Dana' });
    memory.restore({ context: [{ role: 'user', content: 'Open the report', kind: 'task' }], shortTerm: ['Dana likes PDF'], longTerm: ['Dana works in Oslo'] });
    const section = renderConversationSection(memory, 'Open the report', 300);
    expect(section).toMatchObject({ omitted: 0, leftOut: '', shown: 3 });
    expect(section.text).toBe('Things you remember about Dana:\n- Dana works in Oslo\n- Dana likes PDF\nConversation so far:\nuser (task): Open the report');
  });
});

describe('one-text sections', () => {
  it('are clipped to their budget, saying so', () => {
    const section = textSection('workingMemory', 'word '.repeat(2000), 100, '[Working memory of this conversation:]');
    expect(section.usedTokens).toBeLessThanOrEqual(100);
    expect(section.text.startsWith('[Working memory of this conversation:]\nword')).toBe(true);
    expect(section.leftOut).toMatch(/^the end of the text \(\d+ tokens\)$/);
  });
});

describe('compaction', () => {
  it('takes a summary as a plain line or as JSON, and refuses an empty one', () => {
    expect(summaryFromReply('  Booked the train to Oslo.\n')).toEqual({ ok: true, summary: 'Booked the train to Oslo.' });
    expect(summaryFromReply('{"summary": "Booked it."}')).toEqual({ ok: true, summary: 'Booked it.' });
    expect(summaryFromReply('```json\n{"summary": "Fenced."}\n```')).toEqual({ ok: true, summary: 'Fenced.' });
    expect(summaryFromReply('')).toMatchObject({ ok: false, error: 'the memory model answered with nothing' });
    expect(summaryFromReply('{"summary": ""}')).toMatchObject({ ok: false });
    expect(summaryFromReply(`x${'y'.repeat(1000)}`)).toMatchObject({ ok: true, summary: expect.stringMatching(/^xy{298}…$/) });
  });

  it('picks the finished tasks without a summary, newest first', () => {
    const board = new Blackboard();
    board.blackboardFromDict(boardOf(9));
    board.addRequests({ request: 'still running', task_id: 'running' } as MemoryItemData);
    expect(tasksToSummarise(board).map((task) => task.taskId)).toEqual(['task-9', 'task-6', 'task-3']);
  });
});

describe('line splices', () => {
  it('turn one text into the next, whatever changed', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 300; round++) {
      const before = Array.from({ length: Math.floor(random() * 30) }, () => `line ${Math.floor(random() * 12)}`);
      const after = before.filter(() => random() > 0.2).flatMap((line) => (random() > 0.85 ? [line, `new ${Math.floor(random() * 5)}`] : [line]));
      const splices = lineSplices(before, after);
      expect(applyLineSplices(before, splices)).toEqual(after);
    }
    expect(lineSplices(['a', 'b'], ['a', 'b'])).toEqual([]);
    expect(lineSplices(['a', 'b', 'c'], ['a', 'x', 'c'])).toEqual([{ at: 1, remove: 1, insert: ['x'] }]);
  });
});
