/**
 * The History list after a delete: a listing asked before the delete, answered after it, must not
 * bring the deleted session back (CI: the row stayed for good after its Delete).
 */
import { describe, expect, it } from 'vitest';
import type { SessionListItem } from '../../../src/shared/app-api';
import type { MnemoClient } from '../../../src/renderer/src/api/client';
import { createHistoryStore } from '../../../src/renderer/src/store/history-store';

function item(id: string, task: string): SessionListItem {
  return { id, task, status: 'stopped', startedAt: '2026-12-07T10:00:00.000Z', steps: 1, cost: 0 } as SessionListItem;
}

/** Sessions kept in memory, whose listings answer only when the test lets them. */
function heldServer(initial: SessionListItem[]) {
  let kept = [...initial];
  const held: Array<() => void> = [];
  const client = {
    'sessions:list': ({ search }: { search?: string }) =>
      new Promise((resolve) => {
        // The listing is read when asked, as a server reads its folder; it arrives later.
        const answer = kept.filter((session) => !search || session.task.includes(search));
        held.push(() => resolve({ ok: true, value: answer }));
      }),
    'sessions:delete': ({ id }: { id: string }) => {
      kept = kept.filter((session) => session.id !== id);
      return Promise.resolve({ ok: true, value: undefined });
    },
  } as unknown as MnemoClient;
  return {
    client,
    /** Answers the listing asked `index`-th among those still held. */
    answer(index = 0) {
      const [release] = held.splice(index, 1);
      release?.();
    },
    get waiting() {
      return held.length;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the History list', () => {
  it('keeps a deleted session out when a listing asked before the delete answers after it', async () => {
    const server = heldServer([item('a', 'Look around, slowly'), item('b', 'Write a note')]);
    const history = createHistoryStore(server.client);
    void history.getState().refresh();
    server.answer();
    await settle();
    expect(history.getState().sessions.map((session) => session.id)).toEqual(['a', 'b']);

    // A listing is on its way (asked before the delete) when the delete lands.
    void history.getState().refresh();
    const removed = history.getState().remove('a');
    await settle();
    expect(history.getState().sessions.map((session) => session.id)).toEqual(['b']);
    server.answer(0); // the stale listing, with 'a' in it
    await settle();
    expect(history.getState().sessions.map((session) => session.id)).toEqual(['b']);
    expect(server.waiting).toBe(1);
    server.answer(); // the listing asked after the delete
    await removed;
    expect(history.getState().sessions.map((session) => session.id)).toEqual(['b']);
    expect(history.getState().loading).toBe(false);
  });

  it('shows only the answer to the latest search', async () => {
    const server = heldServer([item('a', 'Look around, slowly'), item('b', 'Write a note')]);
    const history = createHistoryStore(server.client);
    history.getState().setSearch('note');
    history.getState().setSearch('slowly');
    server.answer(1);
    await settle();
    server.answer(0);
    await settle();
    expect(history.getState().sessions.map((session) => session.id)).toEqual(['a']);
  });
});
