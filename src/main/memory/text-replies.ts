/** Reading the memory model's answers: a failure in words, a JSON object in a reply's text. */
import type { ModelError } from '../model/types';

/** The message of a failed memory call, for logs and the `lastError` of a change. */
export function describeModelError(error: ModelError): string {
  return error.status !== undefined && !error.message.includes(String(error.status)) ? `${error.message} (HTTP ${error.status})` : error.message;
}

/** Parses a JSON object from a reply text, tolerating a ```json fence around it. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i.exec(trimmed);
  const body = fenced ? (fenced[1] ?? '') : trimmed;
  try {
    const value = JSON.parse(body) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
