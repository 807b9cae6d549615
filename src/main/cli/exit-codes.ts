/** Exit codes of the `mnemo` command; part of its public interface. */
export const ExitCode = {
  ok: 0,
  /** The command ran and its result is an error (an action that failed, for example). */
  errorResult: 1,
  /** Invalid input: bad JSON, unknown key, missing field, bad flag. */
  invalidInput: 2,
  /** A run failed, got stuck or reached a limit. */
  runFailed: 3,
  /** The user aborted: fail-safe corner, Ctrl+C. */
  userAborted: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A command's complaint about its own input: printed to stderr, exit code 2. */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
}
