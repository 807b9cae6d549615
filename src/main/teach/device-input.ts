/**
 * Recorded device events (record.ts) as the inputs the grouping reads: keys through the key
 * tracker (characters, named keys, shortcuts, the stop chord), buttons with the modifiers held at
 * their press, the pointer's moves. Pure, stateful through the tracker.
 */
import type { DeviceEvent } from '../operator/x11/record';
import type { TeachInput } from './grouping';
import type { KeyTracker } from './key-tracker';

export type DeviceInput = { kind: 'input'; input: TeachInput } | { kind: 'stop'; time: number } | { kind: 'none' };

const NONE: DeviceInput = { kind: 'none' };

export function deviceInput(event: DeviceEvent, keys: KeyTracker): DeviceInput {
  const { time, x, y } = event;
  switch (event.kind) {
    case 'motion':
      return { kind: 'input', input: { kind: 'motion', x, y, time } };
    case 'button':
      return {
        kind: 'input',
        input: event.press ? { kind: 'press', button: event.detail, x, y, time, modifiers: keys.modifiers } : { kind: 'release', button: event.detail, x, y, time },
      };
    case 'key': {
      if (!event.press) {
        keys.release(event.detail);
        return NONE;
      }
      const key = keys.press(event.detail);
      if (key === null) return NONE;
      if (key.kind === 'stop') return { kind: 'stop', time };
      return { kind: 'input', input: key.kind === 'text' ? { kind: 'text', char: key.char, time } : { kind: 'key', keys: key.keys, time } };
    }
  }
}
