/**
 * The Workflows view's place in the window's hash route: `#/workflows` for the list,
 * `#/workflows/<name>` with one workflow open, so a reload (or a link from elsewhere in the
 * window, "Save as workflow" showing what it saved) keeps it.
 */
export function workflowsHash(name?: string | null): string {
  return name ? `/workflows/${encodeURIComponent(name)}` : '/workflows';
}

/** The workflow a hash opens, or null (the list alone, or another view). */
export function workflowOfHash(hash: string): string | null {
  const match = /^#?\/?workflows\/([^/]+)$/.exec(hash);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return null;
  }
}
