/**
 * Every relative link of README.md and docs/*.md leads somewhere: to a file or folder that exists
 * and, for a `#anchor`, to a heading of that page (the anchor GitHub makes of it). Links in code
 * are not links; links to other sites are not checked here.
 */
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationPages, headingsOf, proseOf, readPage, REPO, repoPath, slugOf } from '../../fixtures/markdown';

/** The targets of a page's inline links and images, `[text](target)` and `![alt](target "title")`, with their lines. */
function linksOf(markdown: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = [];
  proseOf(markdown)
    .split('\n')
    .forEach((text, line) => {
      for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: match[1] as string, line: line + 1 });
    });
  return links;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The anchors of each page linked to, read once. */
const anchors = new Map<string, string[]>();
function anchorsOf(page: string): string[] {
  let slugs = anchors.get(page);
  if (!slugs) {
    slugs = headingsOf(readPage(page)).map((heading) => heading.slug);
    anchors.set(page, slugs);
  }
  return slugs;
}

/** What is wrong with a link of `page`, or null when it leads somewhere. */
function problemOf(page: string, target: string): string | null {
  const hash = target.indexOf('#');
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = path === '' ? join(REPO, page) : normalize(join(dirname(join(REPO, page)), decodeURIComponent(path)));
  if (!file.startsWith(REPO)) return `leads outside the repository (${target})`;
  if (!existsSync(file)) return `leads to ${repoPath(file)}, which does not exist`;
  if (anchor === null) return null;
  if (!file.endsWith('.md')) return `has an anchor #${anchor} on ${repoPath(file)}, which is not a Markdown page`;
  return anchorsOf(repoPath(file)).includes(anchor) ? null : `leads to #${anchor}, which is no heading of ${repoPath(file)}`;
}

describe('the links of the documentation', () => {
  it('computes the anchors as GitHub does', () => {
    expect(slugOf('The `mnemo` command')).toBe('the-mnemo-command');
    expect(slugOf('Workflows: teach once, run many')).toBe('workflows-teach-once-run-many');
    expect(slugOf('`mnemo workflow run`')).toBe('mnemo-workflow-run');
    expect(slugOf('Mnemo for other agents (MCP)')).toBe('mnemo-for-other-agents-mcp');
    expect(slugOf('`run_task`, and `list_sessions`')).toBe('run_task-and-list_sessions');
    expect(headingsOf('# A\n\n```\n# not a heading\n```\n## A\n').map((heading) => heading.slug)).toEqual(['a', 'a-1']);
  });

  it.each(documentationPages())('%s: every relative link leads to a file and a heading that exist', (page) => {
    const broken = linksOf(readPage(page))
      .filter((link) => !isExternal(link.target))
      .map((link) => ({ ...link, problem: problemOf(page, link.target) }))
      .filter((link) => link.problem !== null)
      .map((link) => `${page}:${link.line}: the link (${link.target}) ${link.problem}`);
    expect(broken).toEqual([]);
  });
});
