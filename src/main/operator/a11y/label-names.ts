/**
 * Names for fields the tree leaves unnamed, from the label a person reads beside them.
 *
 * Toolkits name a field from its label themselves when the program ties the two (GTK from a
 * mnemonic label, Chromium from `<label for>`). Programs that only lay a label next to a field
 * (zenity --forms: a label and an entry side by side in a grid) leave the field with an empty
 * name, and the label as a separate element; a list of interactive elements then says only
 * `3. text`, `5. text`, and neither a model nor a person can tell which field is which. So an
 * unnamed interactive element takes the name of the label on its row just to its left, or else
 * just above it, and says so (`nameFrom: "label"`): the tree itself still holds no name for it,
 * which is what resolving its ref compares against.
 *
 * Pure: it reads only the snapshot's own boxes.
 */
import type { Element } from '../../../shared/elements';
import type { Rect } from '../../../shared/frame';

/** Roles of text that labels something (GTK's label, Chromium's static text). */
const LABEL_ROLES = new Set(['label', 'static']);
/** How far left of a field its label may end (a grid's column gap, a form's padding). */
const MAX_GAP_LEFT = 160;
/** How far above a field its label may end, in the field's heights. */
const MAX_GAP_ABOVE_HEIGHTS = 1.5;
/** A label is on the field's row when its vertical centre lies within the field's box, widened by this. */
const ROW_SLACK = 4;

/** The elements, each unnamed interactive one given the name of the label beside it where there is one. */
export function nameFromLabels(elements: readonly Element[]): Element[] {
  const labels = elements.filter((element) => !element.interactive && LABEL_ROLES.has(element.role) && element.name.trim() !== '');
  if (labels.length === 0) return [...elements];
  return elements.map((element) => {
    if (!element.interactive || element.name.trim() !== '') return element;
    const label = labelBeside(element.bounds, labels) ?? labelAbove(element.bounds, labels);
    return label ? { ...element, name: label.name.trim(), nameFrom: 'label' as const } : element;
  });
}

/** The nearest label ending left of the field, its centre on the field's row. */
function labelBeside(field: Rect, labels: readonly Element[]): Element | undefined {
  let best: { label: Element; gap: number } | undefined;
  for (const label of labels) {
    const centre = label.bounds.y + label.bounds.height / 2;
    if (centre < field.y - ROW_SLACK || centre > field.y + field.height + ROW_SLACK) continue;
    const gap = field.x - (label.bounds.x + label.bounds.width);
    if (gap < -ROW_SLACK || gap > MAX_GAP_LEFT) continue;
    if (!best || gap < best.gap) best = { label, gap };
  }
  return best?.label;
}

/** The nearest label ending just above the field, overlapping it across. */
function labelAbove(field: Rect, labels: readonly Element[]): Element | undefined {
  let best: { label: Element; gap: number } | undefined;
  for (const label of labels) {
    const overlapsAcross = label.bounds.x < field.x + field.width && field.x < label.bounds.x + label.bounds.width;
    if (!overlapsAcross) continue;
    const gap = field.y - (label.bounds.y + label.bounds.height);
    if (gap < -ROW_SLACK || gap > field.height * MAX_GAP_ABOVE_HEIGHTS) continue;
    if (!best || gap < best.gap) best = { label, gap };
  }
  return best?.label;
}

/** The name the tree itself holds for the element: empty where its name was taken from a label. */
export function ownName(element: Pick<Element, 'name' | 'nameFrom'>): string {
  return element.nameFrom === 'label' ? '' : element.name;
}
