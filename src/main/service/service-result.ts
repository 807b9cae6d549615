/**
 * How the services answer: a value, or an error of a kind each front end maps to its own terms
 * (an exit code, an HTTP status, an IPC error). Apart from the services themselves, so each one
 * (the run service, the memory service) can use it without importing another.
 */
export type ServiceErrorKind =
  /** Settings missing or invalid (a flag, the config file, an unknown conversation). */
  | 'settings'
  /** A run is already going on that display. */
  | 'busy'
  /** The request does not fit the run's state (an answer when no question waits, input outside a takeover). */
  | 'conflict'
  /** The display cannot be opened. */
  | 'no_display'
  /** A record cannot be written: a session, a workflow (the data directory is not writable). */
  | 'record'
  /** No such session (or fact, or workflow). */
  | 'not_found'
  /** What was given or found cannot be used, with the first problem: a workflow file to import, a damaged workflow, a parameter a workflow does not have or lacks. */
  | 'invalid'
  /** The memory's storage cannot be used: Redis unreachable, a wrong memory key, a damaged store. */
  | 'memory'
  /** The part that would serve it is not there (no demonstration recorder plugged in). */
  | 'unavailable'
  /** A workflow the user has not trusted (imported, or changed since it was trusted) does not run. */
  | 'untrusted';

export interface ServiceError {
  kind: ServiceErrorKind;
  message: string;
  /** For `busy`: the session holding the display, when known. */
  sessionId?: string | null;
}

export type ServiceResult<T> = { ok: true; value: T } | { ok: false; error: ServiceError };
