/** The app's log: one line per notice, appended to `mnemo.log` in the user data folder (owner-only, like every file Mnemo writes). */
import { dirname } from 'node:path';
import { appendPrivate, makePrivateDir } from '../disk/files';

export function fileLogger(file: string): (line: string) => void {
  let ready: Promise<unknown> = makePrivateDir(dirname(file));
  return (line) => {
    const text = `${new Date().toISOString()} ${line}\n`;
    // In order, and never a rejection that could end the app.
    ready = ready.then(() => appendPrivate(file, text)).catch(() => undefined);
  };
}
