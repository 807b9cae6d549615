/**
 * The operator host: a child process that opens the X display with libnut and runs a
 * DesktopOperator for the main process (isolated-operator.ts). libnut crashes on a display it
 * cannot open, and Xlib ends the process whose X server goes away with exit(1), before any of our
 * code can run: here that costs this process, and the main process turns it into a message.
 *
 * Started with an IPC channel (host-protocol.ts); it ends when the channel closes, that is when
 * the main process closes the operator, exits or dies, and not at a signal sent to its group.
 */
import { DesktopOperator } from './desktop-operator';
import { holdDisplay } from './display-check';
import { HostExitCode, type FromHost, type ToHost } from './host-protocol';
import { openNut } from './nut';

let operator: DesktopOperator | undefined;
/** Running `execute` calls by id, for `cancel`. */
const running = new Map<number, AbortController>();

function send(message: FromHost): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function start(options: Extract<ToHost, { type: 'start' }>['options']): Promise<void> {
  const hold = await holdDisplay(process.env);
  if (!hold.ok) {
    await send({ type: 'cannot-open', message: hold.message });
    process.exit(HostExitCode.cannotOpen);
  }
  // Held for the life of the host, so that the server cannot reset while libnut opens its own
  // connection, and so that its loss is seen at once: Xlib would notice only at its next call.
  void hold.lost.then(() => process.exit(HostExitCode.displayLost));
  const nut = await openNut();
  operator = new DesktopOperator(nut, options);
  // The first display list runs xrandr: better now than in the first observation.
  await operator.displays();
  await send({ type: 'ready' });
}

async function invoke(active: DesktopOperator, call: Extract<ToHost, { type: 'call' }>): Promise<unknown> {
  switch (call.method) {
    case 'observe':
      return active.observe(...call.args);
    case 'execute': {
      const controller = new AbortController();
      running.set(call.id, controller);
      try {
        return await active.execute(call.args[0], call.args[1], controller.signal);
      } finally {
        running.delete(call.id);
      }
    }
    case 'fingerprint':
      return active.fingerprint(...call.args);
    case 'liveFrame':
      return active.liveFrame(...call.args);
    case 'activeWindowTitle':
      return active.activeWindowTitle();
    case 'displays':
      return active.displays();
    case 'pointerPosition':
      return active.pointerPosition();
    case 'resetFailSafe':
      return active.resetFailSafe();
  }
}

async function answer(call: Extract<ToHost, { type: 'call' }>): Promise<void> {
  if (!operator) return send({ type: 'threw', id: call.id, message: 'the operator host has not started' });
  try {
    await send({ type: 'result', id: call.id, value: await invoke(operator, call) });
  } catch (error) {
    await send({ type: 'threw', id: call.id, message: error instanceof Error ? error.message : String(error) });
  }
}

function receive(message: ToHost): void {
  switch (message.type) {
    case 'start':
      void start(message.options);
      return;
    case 'call':
      void answer(message);
      return;
    case 'cancel':
      running.get(message.id)?.abort();
      return;
  }
}

if (process.send) {
  process.on('message', (message) => receive(message as ToHost));
  process.on('disconnect', () => process.exit(0));
  // A supervisor (`timeout`, systemd) signals the whole process group: the main process is the
  // one to stop the run, and it still needs this host to finish cleanly; the host ends with it.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
} else {
  process.stderr.write('operator-host: start me with an IPC channel (see isolated-operator.ts)\n');
  process.exitCode = 2;
}
