/** JSON from text that may not be JSON (a model's reply, a file someone edited): undefined then. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
