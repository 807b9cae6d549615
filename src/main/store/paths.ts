/**
 * Where a session lives in the data directory:
 *
 *   <dataDir>/sessions/index.jsonl                   the index (see session-index.ts)
 *   <dataDir>/sessions/<id>/session.json             metadata, written atomically when the run starts and when it ends
 *   <dataDir>/sessions/<id>/events.jsonl             append-only, fsynced at the end of every step
 *   <dataDir>/sessions/<id>/screenshots/step-0003.jpg   the model-ready image
 *   <dataDir>/sessions/<id>/screenshots/step-0003.full.png  the full-resolution capture (optional)
 *   <dataDir>/sessions/<id>/replies/step-0003.txt    the model's raw reply, secrets masked
 *   <dataDir>/sessions/<id>/ending.json              space reserved at the start for the ending (session-ending.ts)
 *   <dataDir>/sessions/<id>/write-failed             empty; present when a write failed
 */
import { join } from 'node:path';

export const SESSION_FILE = 'session.json';
export const EVENTS_FILE = 'events.jsonl';
export const SCREENSHOTS_DIR = 'screenshots';
export const REPLIES_DIR = 'replies';

/** Session folder names: what newSessionId makes, and nothing that could leave the folder (shared with the window's contract). */
export { SESSION_ID_PATTERN } from '../../shared/session-id';

export function sessionsRoot(dataDir: string): string {
  return join(dataDir, 'sessions');
}

export function sessionDirectory(dataDir: string, id: string): string {
  return join(sessionsRoot(dataDir), id);
}

/** `step-0003`: the stem of every per-step file. */
export function stepStem(step: number): string {
  return `step-${String(step).padStart(4, '0')}`;
}
