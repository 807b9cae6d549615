/**
 * The folder walk that tightening the data directory and counting a session's bytes share: each
 * folder before what it holds, links not followed, unreadable folders reported instead of thrown.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walkFolder, type FolderWalkItem } from '../../../src/main/disk/folder-walk';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-walk-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function walked(folder: string): Promise<FolderWalkItem[]> {
  const items: FolderWalkItem[] = [];
  for await (const item of walkFolder(folder)) items.push({ kind: item.kind, path: item.path.slice(folder.length + 1) || item.path });
  return items;
}

describe('walkFolder', () => {
  it('gives each folder before what it holds, and skips links', async () => {
    const root = mkdtempSync(join(scratch, 'tree-'));
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'b', 'deep.txt'), 'x');
    writeFileSync(join(root, 'top.txt'), 'y');
    const outside = mkdtempSync(join(scratch, 'outside-'));
    writeFileSync(join(outside, 'not-ours.txt'), 'z');
    symlinkSync(outside, join(root, 'link-to-folder'));
    symlinkSync(join(root, 'top.txt'), join(root, 'link-to-file'));

    const items = await walked(root);
    expect(items.map((item) => `${item.kind} ${item.path}`).sort()).toEqual(['file a/b/deep.txt', 'file top.txt', 'folder a', 'folder a/b']);
    const order = items.map((item) => item.path);
    expect(order.indexOf('a')).toBeLessThan(order.indexOf('a/b'));
    expect(order.indexOf('a/b')).toBeLessThan(order.indexOf('a/b/deep.txt'));
  });

  it('reports a folder it cannot read (here: one that does not exist) and ends', async () => {
    const missing = join(scratch, 'missing');
    expect(await walked(missing)).toEqual([{ kind: 'unreadable', path: missing }]);
  });
});
