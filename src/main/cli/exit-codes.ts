/**
 * Exit codes of the `mnemo` command; part of its public interface. A display that cannot be
 * opened or goes away is never a signal: `displays`, `screenshot` and `act` exit 1, `run` and
 * `replay` 3 (the run failed), with a message on stderr naming DISPLAY and what to do.
 */
export const ExitCode = {
  ok: 0,
  /** The command ran and its result is an error (an action that failed, no display, for example). */
  errorResult: 1,
  /** Invalid input: bad JSON, unknown key, missing field, bad flag. */
  invalidInput: 2,
  /** A run failed, got stuck or reached a limit (or lost its display). */
  runFailed: 3,
  /** The user aborted: fail-safe corner, Ctrl+C. */
  userAborted: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit codes as `mnemo --help` shows them. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  an error result: an action that failed, no such session; for displays, screenshot and act
     also a display that cannot be opened or was lost (the message names DISPLAY)
  2  invalid input: bad JSON, unknown key, missing field, bad flag
  3  a run or replay failed, got stuck or reached a limit, including a display that cannot be
     opened or was lost
  4  stopped by the user: Ctrl+C, the fail-safe corner, a refused confirmation
Never a signal because of the display: a missing, refused, resetting or vanished X server is a
message and one of the codes above.`;

/** A command's complaint about its own input: printed to stderr, exit code 2. */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
}
