/**
 * How a text is typed: a plan of segments, each either keystrokes (characters a US key produces,
 * Shift explicit) or a paste (everything else: accents, CJK, emoji). A pure function, so the plan
 * is tested without a display.
 */
import { keystrokeForChar, type Keystroke } from './key-map';

export type TypingSegment = { kind: 'keys'; text: string; strokes: Keystroke[] } | { kind: 'paste'; text: string };

export type TypingMode =
  /**
   * Keystrokes where a key exists, the clipboard for the rest; a text that would need more than
   * MAX_PASTES_IN_AUTO pastes goes through the clipboard whole (each paste costs a settle delay).
   */
  | 'auto'
  /** Everything through the clipboard (fast for long texts; not for terminals without Ctrl+V). */
  | 'clipboard';

export function planTyping(input: string, mode: TypingMode = 'auto'): TypingSegment[] {
  // One Enter per line break, whichever convention the text uses.
  const text = input.replace(/\r\n?/g, '\n');
  if (text.length === 0) return [];
  if (mode === 'clipboard') return splitNewlines(text);
  const mixed = planMixed(text);
  return mixed.filter((segment) => segment.kind === 'paste').length > MAX_PASTES_IN_AUTO ? splitNewlines(text) : mixed;
}

export const MAX_PASTES_IN_AUTO = 2;

function planMixed(text: string): TypingSegment[] {
  const segments: TypingSegment[] = [];
  // Iterate by code point so surrogate pairs (emoji) stay whole.
  for (const char of text) {
    const stroke = keystrokeForChar(char);
    const last = segments[segments.length - 1];
    if (stroke) {
      if (last?.kind === 'keys') {
        last.text += char;
        last.strokes.push(stroke);
      } else segments.push({ kind: 'keys', text: char, strokes: [stroke] });
    } else if (last?.kind === 'paste') last.text += char;
    else segments.push({ kind: 'paste', text: char });
  }
  return segments;
}

/** In clipboard mode newlines are still Enter presses: a pasted newline does not submit a form. */
function splitNewlines(text: string): TypingSegment[] {
  const segments: TypingSegment[] = [];
  const enter = keystrokeForChar('\n') as Keystroke;
  for (const part of text.split(/(\n)/)) {
    if (part === '') continue;
    if (part === '\n') segments.push({ kind: 'keys', text: '\n', strokes: [enter] });
    else segments.push({ kind: 'paste', text: part });
  }
  return segments;
}
