/** The app's log: one line per notice, appended to `mnemo.log` in the user data folder. */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

export function fileLogger(file: string): (line: string) => void {
  let ready: Promise<unknown> = mkdir(dirname(file), { recursive: true, mode: 0o700 });
  return (line) => {
    const text = `${new Date().toISOString()} ${line}\n`;
    // In order, and never a rejection that could end the app.
    ready = ready.then(() => appendFile(file, text, { mode: 0o600 })).catch(() => undefined);
  };
}
