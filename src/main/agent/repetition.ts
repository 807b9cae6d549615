/**
 * Notices a model that repeats itself: the same action on an unchanged screen. The 3rd time in a
 * row earns a note to the model; a 4th is refused and the run ends as stuck. Waiting does not count.
 */
import type { Action } from '../../shared/actions';
import { sameScreen, type ScreenFingerprint } from '../operator/screen-diff';

export const REPEAT_NOTE_AT = 3;
export const REPEAT_STUCK_AT = 4;

export type RepetitionVerdict = { kind: 'ok' } | { kind: 'note'; message: string; count: number } | { kind: 'stuck'; message: string; count: number };

/** Two actions are "the same" when they would do the same thing (confirm flags aside). */
function actionKey(action: Action): string {
  const { confirm: _confirm, ...rest } = action;
  return JSON.stringify(rest, Object.keys(rest).sort());
}

export class RepetitionGuard {
  private lastKey: string | undefined;
  private lastScreen: ScreenFingerprint | undefined;
  private count = 0;

  constructor(
    private readonly noteAt = REPEAT_NOTE_AT,
    private readonly stuckAt = REPEAT_STUCK_AT,
  ) {}

  /** Call before executing `action` on a screen that looks like `screen`. */
  check(action: Action, screen: ScreenFingerprint | undefined): RepetitionVerdict {
    // Waiting or looking again on an unchanged screen is patience, not a failed interaction (a
    // slow installer); the step limit bounds it.
    if (action.type === 'wait' || action.type === 'screenshot') {
      this.reset();
      return { kind: 'ok' };
    }
    const key = actionKey(action);
    const repeated = key === this.lastKey && sameScreen(screen, this.lastScreen);
    this.count = repeated ? this.count + 1 : 1;
    this.lastKey = key;
    this.lastScreen = screen;
    const described = `${action.type} ${key}`;
    if (this.count >= this.stuckAt) {
      return {
        kind: 'stuck',
        count: this.count,
        message: `the model asked for the same action ${this.count} times in a row on an unchanged screen (${described})`,
      };
    }
    if (this.count >= this.noteAt) {
      return {
        kind: 'note',
        count: this.count,
        message: `Note: you have done the same action ${this.count} times in a row and the screen did not change. It is not working; try something different (another target, a keyboard shortcut, scrolling, or ask the user).`,
      };
    }
    return { kind: 'ok' };
  }

  reset(): void {
    this.lastKey = undefined;
    this.lastScreen = undefined;
    this.count = 0;
  }
}
