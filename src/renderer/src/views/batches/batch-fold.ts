/**
 * What a batch change does to what the Batches view holds: the list gets the batch's new summary
 * (a new batch goes first, the list being newest first), the batch open gets its summary and the
 * rows that changed. Pure, so the view and its tests fold the same way.
 */
import type { BatchChange, BatchDetail, BatchSummary } from '../../../../shared/batch';

export function listWithChange(list: readonly BatchSummary[], change: BatchChange): BatchSummary[] {
  const index = list.findIndex((batch) => batch.id === change.batch.id);
  if (index === -1) return [change.batch, ...list];
  return list.map((batch, i) => (i === index ? change.batch : batch));
}

export function detailWithChange(detail: BatchDetail | null, change: BatchChange): BatchDetail | null {
  if (!detail || detail.id !== change.batch.id) return detail;
  const changed = new Map(change.rows.map((row) => [row.row, row]));
  const rows = detail.rows.map((row) => changed.get(row.row) ?? row);
  return { ...change.batch, rows };
}

/** `#/batches/<id>`: the batch open in the view, or null. */
export function batchOfHash(hash: string): string | null {
  const [view, id] = hash.replace(/^#\/?/, '').split('/');
  return view === 'batches' && id ? decodeURIComponent(id) : null;
}

export function batchesHash(id: string | null): string {
  return id ? `/batches/${encodeURIComponent(id)}` : '/batches';
}
