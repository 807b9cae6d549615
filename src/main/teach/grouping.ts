/**
 * A demonstration's raw input becomes the actions a run would have taken, in screen pixels. Pure
 * and stateful: inputs are pushed in order, and each push (or a tick of the clock, or the end)
 * hands back the actions it completed, in the order they began.
 *
 * - a press and release of a button close together: a click; another within the double-click time
 *   and a few pixels: a double click (three: a triple click), with the modifiers held at the press;
 * - a press, a move beyond the drag distance, a release: a drag from the press to the release;
 * - wheel buttons 4-7: a scroll (up, down, left, right), consecutive notches in one direction at
 *   one place adding up its amount;
 * - characters: one `type` per field, ended by a click, a named key or a shortcut; Backspace takes
 *   back the group's last character (and is a key of its own when the group is empty);
 * - named keys and shortcuts: `hotkey`.
 *
 * Times are the X server's milliseconds; each action says when it began (`startedAt`, to pick the
 * screenshot from just before it) and ended.
 */
import type { Action } from '../../shared/actions';
import type { MouseButton, ScrollDirection } from '../../shared/actions';

export type TeachInput =
  | { kind: 'press'; button: number; x: number; y: number; time: number; modifiers: string[] }
  | { kind: 'release'; button: number; x: number; y: number; time: number }
  | { kind: 'motion'; x: number; y: number; time: number }
  | { kind: 'text'; char: string; time: number }
  | { kind: 'key'; keys: string[]; time: number };

export interface GroupedAction {
  /** In screen pixels (the root window's). */
  action: Action;
  startedAt: number;
  endedAt: number;
}

export interface GroupingOptions {
  /** Longest gap from a release to the next press of a double click. */
  doubleClickMs: number;
  /** Farthest the pointer may be from the first click for a double click. */
  doubleClickPx: number;
  /** A press that moves farther than this before its release is a drag. */
  dragPx: number;
  /** Notches farther apart in time than this are two scrolls. */
  scrollGapMs: number;
  /** Notches farther apart on the screen than this are two scrolls. */
  scrollPx: number;
}

export const DEFAULT_GROUPING: GroupingOptions = { doubleClickMs: 400, doubleClickPx: 6, dragPx: 8, scrollGapMs: 700, scrollPx: 24 };

const BUTTONS: Record<number, MouseButton> = { 1: 'left', 2: 'middle', 3: 'right' };
const WHEEL: Record<number, ScrollDirection> = { 4: 'up', 5: 'down', 6: 'left', 7: 'right' };
const CLICKS = ['click', 'double_click', 'triple_click'] as const;
const MAX_SCROLL = 100;

interface Point {
  x: number;
  y: number;
}

const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

interface Pressed {
  button: number;
  at: Point;
  time: number;
  modifiers: string[];
  /** The farthest the pointer went from the press. */
  reach: number;
  /** The click this press may add to (a double click's second press). */
  continues: PendingClick | null;
}

interface PendingClick {
  button: number;
  at: Point;
  count: number;
  modifiers: string[];
  startedAt: number;
  lastRelease: number;
}

interface PendingScroll {
  direction: ScrollDirection;
  at: Point;
  amount: number;
  startedAt: number;
  last: number;
}

interface Typing {
  text: string;
  startedAt: number;
  endedAt: number;
}

export class ActionGrouper {
  private pressed: Pressed | null = null;
  private click: PendingClick | null = null;
  private scroll: PendingScroll | null = null;
  private typing: Typing | null = null;

  constructor(private readonly options: GroupingOptions = DEFAULT_GROUPING) {}

  /** When the earliest action still open began (its screenshot must be kept), or null. */
  get openSince(): number | null {
    const starts = [this.pressed?.continues?.startedAt ?? this.pressed?.time, this.click?.startedAt, this.scroll?.startedAt, this.typing?.startedAt].filter(
      (time): time is number => time !== undefined,
    );
    return starts.length === 0 ? null : Math.min(...starts);
  }

  push(input: TeachInput): GroupedAction[] {
    const done: GroupedAction[] = [];
    switch (input.kind) {
      case 'motion':
        if (this.pressed) this.pressed.reach = Math.max(this.pressed.reach, distance(this.pressed.at, input));
        break;
      case 'text':
        done.push(...this.closeClick(), ...this.closeScroll());
        if (this.typing) {
          this.typing.text += input.char;
          this.typing.endedAt = input.time;
        } else this.typing = { text: input.char, startedAt: input.time, endedAt: input.time };
        break;
      case 'key':
        done.push(...this.closeClick(), ...this.closeScroll());
        if (input.keys.length === 1 && input.keys[0] === 'backspace' && this.typing && this.typing.text.length > 0) {
          this.typing.text = [...this.typing.text].slice(0, -1).join('');
          this.typing.endedAt = input.time;
          break;
        }
        done.push(...this.closeTyping(), { action: { type: 'hotkey', keys: input.keys }, startedAt: input.time, endedAt: input.time });
        break;
      case 'press':
        done.push(...this.pressButton(input));
        break;
      case 'release':
        done.push(...this.releaseButton(input));
        break;
    }
    return done;
  }

  /** The clock moved on (server time): a click no second one followed, a scroll that stopped. */
  tick(time: number): GroupedAction[] {
    const done: GroupedAction[] = [];
    if (this.click && !this.pressed && time - this.click.lastRelease > this.options.doubleClickMs) done.push(...this.closeClick());
    if (this.scroll && time - this.scroll.last > this.options.scrollGapMs) done.push(...this.closeScroll());
    return done;
  }

  /** The demonstration ended: everything still open, in order. */
  flush(): GroupedAction[] {
    const done = [...this.closeClick(), ...this.closeScroll(), ...this.closeTyping()];
    this.pressed = null;
    return done;
  }

  private pressButton(input: Extract<TeachInput, { kind: 'press' }>): GroupedAction[] {
    const direction = WHEEL[input.button];
    if (direction) {
      const done = [...this.closeClick(), ...this.closeTyping()];
      const at = { x: input.x, y: input.y };
      const scroll = this.scroll;
      if (scroll && scroll.direction === direction && input.time - scroll.last <= this.options.scrollGapMs && distance(scroll.at, at) <= this.options.scrollPx && scroll.amount < MAX_SCROLL) {
        scroll.amount++;
        scroll.last = input.time;
        return done;
      }
      done.push(...this.closeScroll());
      this.scroll = { direction, at, amount: 1, startedAt: input.time, last: input.time };
      return done;
    }
    if (!BUTTONS[input.button]) return [];
    const done = [...this.closeTyping(), ...this.closeScroll()];
    const at = { x: input.x, y: input.y };
    const click = this.click;
    const continues =
      click && click.button === input.button && input.time - click.lastRelease <= this.options.doubleClickMs && distance(click.at, at) <= this.options.doubleClickPx ? click : null;
    if (!continues) done.push(...this.closeClick());
    this.pressed = { button: input.button, at, time: input.time, modifiers: input.modifiers, reach: 0, continues };
    return done;
  }

  private releaseButton(input: Extract<TeachInput, { kind: 'release' }>): GroupedAction[] {
    const pressed = this.pressed;
    if (!pressed || pressed.button !== input.button) return [];
    this.pressed = null;
    const to = { x: input.x, y: input.y };
    const button = BUTTONS[pressed.button] as MouseButton;
    if (Math.max(pressed.reach, distance(pressed.at, to)) > this.options.dragPx) {
      const drag: Action = { type: 'drag', x: pressed.at.x, y: pressed.at.y, toX: to.x, toY: to.y, button };
      return [...this.closeClick(), { action: drag, startedAt: pressed.time, endedAt: input.time }];
    }
    if (pressed.continues && pressed.continues === this.click) {
      this.click.count++;
      this.click.lastRelease = input.time;
      return this.click.count >= CLICKS.length ? this.closeClick() : [];
    }
    this.click = { button: pressed.button, at: pressed.at, count: 1, modifiers: pressed.modifiers, startedAt: pressed.time, lastRelease: input.time };
    return [];
  }

  private closeClick(): GroupedAction[] {
    const click = this.click;
    if (!click) return [];
    this.click = null;
    const type = CLICKS[Math.min(click.count, CLICKS.length) - 1] as (typeof CLICKS)[number];
    const action: Action = {
      type,
      x: click.at.x,
      y: click.at.y,
      button: BUTTONS[click.button] as MouseButton,
      ...(click.modifiers.length > 0 ? { modifiers: click.modifiers } : {}),
    };
    return [{ action, startedAt: click.startedAt, endedAt: click.lastRelease }];
  }

  private closeScroll(): GroupedAction[] {
    const scroll = this.scroll;
    if (!scroll) return [];
    this.scroll = null;
    return [{ action: { type: 'scroll', x: scroll.at.x, y: scroll.at.y, direction: scroll.direction, amount: scroll.amount }, startedAt: scroll.startedAt, endedAt: scroll.last }];
  }

  private closeTyping(): GroupedAction[] {
    const typing = this.typing;
    if (!typing) return [];
    this.typing = null;
    // Typed and all taken back: nothing happened in the field.
    return typing.text === '' ? [] : [{ action: { type: 'type', text: typing.text }, startedAt: typing.startedAt, endedAt: typing.endedAt }];
  }
}

/** A whole demonstration's inputs at once (tests, a recording read back). */
export function groupActions(inputs: readonly TeachInput[], options: GroupingOptions = DEFAULT_GROUPING): GroupedAction[] {
  const grouper = new ActionGrouper(options);
  const done: GroupedAction[] = [];
  for (const input of inputs) {
    done.push(...grouper.tick(input.time), ...grouper.push(input));
  }
  return [...done, ...grouper.flush()];
}
