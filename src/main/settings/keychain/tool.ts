/**
 * One run of the OS's own keychain command (secret-tool, security, powershell): the secret goes in
 * on stdin and comes back on stdout, never on the command line, where any account could read it
 * (`ps`). What it printed is handed back as it is; the callers never log stdout, which may hold the
 * secret. A keychain can wait for its user (an unlock prompt), so a call has a deadline, after
 * which the child is stopped and the answer says so.
 */
import { spawn } from 'node:child_process';

export type ToolRun =
  | { kind: 'exited'; code: number; stdout: string; stderr: string }
  /** The command is not installed (ENOENT). */
  | { kind: 'missing' }
  | { kind: 'timed out'; ms: number }
  | { kind: 'failed'; message: string };

export interface ToolOptions {
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed (closed at once when absent). */
  input?: string;
  timeoutMs: number;
}

export function runTool(command: string, args: readonly string[], options: ToolOptions): Promise<ToolRun> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (run: ToolRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(run);
    };
    const child = spawn(command, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const timer = setTimeout(() => {
      child.kill();
      finish({ kind: 'timed out', ms: options.timeoutMs });
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ENOENT' ? { kind: 'missing' } : { kind: 'failed', message: error.message }));
    child.on('close', (code, signal) => {
      if (code === null) finish({ kind: 'failed', message: `${command} ended by ${signal ?? 'a signal'}` });
      else finish({ kind: 'exited', code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
    // A command that exits before reading its input must not turn into an unhandled EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** The last non-empty line a command printed on stderr, for a message (never stdout: it may hold the secret). */
export function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines[lines.length - 1] ?? '';
}
