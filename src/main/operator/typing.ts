/**
 * How a text is typed: a plan of segments, each either keystrokes (characters a key of the active
 * layout produces) or a paste (everything else: characters the layout has no key for, such as
 * accents on a US layout, CJK, emoji). A pure function of the text and the layout's answer to
 * "can you type this?", so the plan is tested without a display.
 */

export type TypingSegment = { kind: 'keys'; text: string } | { kind: 'paste'; text: string };

export type TypingMode =
  /**
   * Keystrokes where a key exists, the clipboard for the rest; a text that would need more than
   * MAX_PASTES_IN_AUTO pastes goes through the clipboard whole (each paste costs a settle delay).
   */
  | 'auto'
  /** Everything through the clipboard (fast for long texts; not for terminals without Ctrl+V). */
  | 'clipboard';

/** Whether the active layout has a key for a character ("\n" is Enter, "\t" Tab). */
export type CanType = (char: string) => boolean;

export function planTyping(input: string, canType: CanType, mode: TypingMode = 'auto'): TypingSegment[] {
  // One Enter per line break, whichever convention the text uses.
  const text = input.replace(/\r\n?/g, '\n');
  if (text.length === 0) return [];
  if (mode === 'clipboard') return splitNewlines(text);
  const mixed = planMixed(text, canType);
  return mixed.filter((segment) => segment.kind === 'paste').length > MAX_PASTES_IN_AUTO ? splitNewlines(text) : mixed;
}

export const MAX_PASTES_IN_AUTO = 2;

function planMixed(text: string, canType: CanType): TypingSegment[] {
  const segments: TypingSegment[] = [];
  // Iterate by code point so surrogate pairs (emoji) stay whole.
  for (const char of text) {
    const kind = canType(char) ? 'keys' : 'paste';
    const last = segments[segments.length - 1];
    if (last?.kind === kind) last.text += char;
    else segments.push({ kind, text: char });
  }
  return joinPastesAcrossKeys(segments);
}

/**
 * Keys between two pastes on one line go with them ("漢字 中文" is one paste, not two and a
 * space): every paste hands the clipboard to a new text, and an application that reads a paste
 * more than once (Chromium does) may still be reading the last one when the next takes over. A
 * paste inserts those characters as their keys would; line breaks and tabs stay keys (a pasted
 * newline does not submit a form, a pasted tab does not move the focus).
 */
function joinPastesAcrossKeys(segments: TypingSegment[]): TypingSegment[] {
  const joined: TypingSegment[] = [];
  for (const [index, segment] of segments.entries()) {
    const previous = joined[joined.length - 1];
    const next = segments[index + 1];
    const bridges = segment.kind === 'keys' && previous?.kind === 'paste' && next?.kind === 'paste' && !/[\n\t]/.test(segment.text);
    if (previous?.kind === 'paste' && (bridges || segment.kind === 'paste')) previous.text += segment.text;
    else joined.push({ ...segment });
  }
  return joined;
}

/** In clipboard mode newlines are still Enter presses: a pasted newline does not submit a form. */
function splitNewlines(text: string): TypingSegment[] {
  const segments: TypingSegment[] = [];
  for (const part of text.split(/(\n)/)) {
    if (part === '') continue;
    segments.push({ kind: part === '\n' ? 'keys' : 'paste', text: part });
  }
  return segments;
}
