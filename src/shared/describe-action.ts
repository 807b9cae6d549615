/**
 * Actions in words, for every place that shows one: a short label for messages, the terminal and
 * the timeline (`click at (697, 64)`, `type "Ada"`), and a sentence for the report and the step
 * inspector (`Left-click at (697, 64)`). Typed secrets never show.
 */
import { actionPoints, dragPath, type Action, type ActionOf, type Point } from './actions';

/** What stands in for a typed secret everywhere it is recorded or shown. */
export const MASK = '********';

/** Typed text is cut to this many characters in labels. */
export const LABEL_TEXT_LIMIT = 40;

export function truncate(text: string, limit = LABEL_TEXT_LIMIT): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit).join('')}…`;
}

/** Typed text as shown: quoted and escaped, or the mask for a secret. */
export function shownTypedText(action: ActionOf<'type' | 'type_into'>, limit = LABEL_TEXT_LIMIT): string {
  if (action.secret === true || action.text === MASK) return MASK;
  return `"${truncate(JSON.stringify(action.text).slice(1, -1), limit)}"`;
}

/** The action as it may be shown: typed secrets masked, whatever the record holds. */
export function shownAction(action: Action): Action {
  return (action.type === 'type' || action.type === 'type_into') && action.secret === true ? { ...action, text: MASK } : action;
}

/** `(697, 64)`: the numbers as given (a model's relative coordinates keep their fractions). */
export function formatPoint(point: Point): string {
  return `(${point.x}, ${point.y})`;
}

/** A point of an image in whole pixels, as labels show it. */
export function roundPoint(point: Point): Point {
  return { x: Math.round(point.x), y: Math.round(point.y) };
}

/**
 * `click at (697, 64)`, `type "Ada"`, `hotkey ctrl+s`: a short label. `speak` puts the point in
 * the coordinates of whoever reads it (a model's own; the image's by default).
 */
export function describeAction(action: Action, speak: (point: Point) => Point = roundPoint): string {
  const [aimed] = actionPoints(action);
  const point = aimed ? speak(aimed) : undefined;
  const at = point ? ` at ${formatPoint(point)}` : '';
  switch (action.type) {
    case 'type':
      return action.secret === true || action.text === MASK ? 'type (a masked secret)' : `type ${JSON.stringify(action.text.length > 40 ? `${action.text.slice(0, 37)}...` : action.text)}`;
    case 'hotkey':
    case 'key_down':
    case 'key_up':
      return `${action.type} ${action.keys.join('+')}`;
    case 'scroll':
      return `scroll ${action.direction}${at}`;
    case 'wait':
      return `wait ${action.ms} ms`;
    case 'finished':
      return action.summary ? `finished: ${action.summary}` : 'finished';
    case 'ask_user':
      return `ask: ${action.question}`;
    case 'fail':
      return `give up: ${action.reason}`;
    case 'query_long_term_memory':
      return `recall: ${action.hint}`;
    case 'save_fact':
      return `remember ${action.subject} ${action.keyword}: ${action.values?.join('; ') ?? action.value ?? ''}`;
    case 'run_workflow':
      return `run workflow ${action.name}${workflowParams(action.params)}`;
    case 'mouse_move':
      return `move to ${point ? formatPoint(point) : ''}`.trimEnd();
    case 'click_element':
      return `click element ${action.n}`;
    case 'type_into':
      return `type ${action.secret === true || action.text === MASK ? '(a masked secret)' : JSON.stringify(action.text.length > 40 ? `${action.text.slice(0, 37)}...` : action.text)} into element ${action.n}`;
    case 'zoom':
      return `zoom into ${formatPoint(speak({ x: action.x, y: action.y }))} to ${formatPoint(speak({ x: action.toX, y: action.toY }))}`;
    default:
      return `${action.type}${at}`;
  }
}

const at = (x: number | undefined, y: number | undefined): string => (x !== undefined && y !== undefined ? ` at (${x}, ${y})` : '');
const BUTTON_WORDS = { left: 'Left', right: 'Right', middle: 'Middle' } as const;

/** One readable sentence per action. */
export function actionSentence(action: Action): string {
  const held = 'modifiers' in action && action.modifiers?.length ? ` holding ${action.modifiers.join('+')}` : '';
  switch (action.type) {
    case 'click':
      return `${BUTTON_WORDS[action.button]}-click${at(action.x, action.y)}${held}`;
    case 'double_click':
      return `Double-click (${action.button})${at(action.x, action.y)}${held}`;
    case 'triple_click':
      return `Triple-click (${action.button})${at(action.x, action.y)}${held}`;
    case 'mouse_move':
      return `Move the mouse to (${action.x}, ${action.y})`;
    case 'mouse_down':
      return `Press the ${action.button} button${at(action.x, action.y)}`;
    case 'mouse_up':
      return `Release the ${action.button} button${at(action.x, action.y)}`;
    case 'drag': {
      const path = dragPath(action);
      const first = path[0];
      const last = path.at(-1);
      const via = path.length > 2 ? ` through ${path.length - 2} point${path.length > 3 ? 's' : ''}` : '';
      const button = action.button !== 'left' ? ` with the ${action.button} button` : '';
      return `Drag from (${first?.x}, ${first?.y}) to (${last?.x}, ${last?.y})${via}${button}${held}`;
    }
    case 'scroll':
      return `Scroll ${action.direction} ${action.amount} notch${action.amount === 1 ? '' : 'es'}${at(action.x, action.y)}${held}`;
    case 'type':
      return `Type ${shownTypedText(action, 200)}${action.secret === true || action.text === MASK ? ' (secret, masked)' : ''}`;
    case 'hotkey':
      return `Press ${action.keys.join('+')}`;
    case 'key_down':
      return `Hold down ${action.keys.join('+')}`;
    case 'key_up':
      return `Release ${action.keys.join('+')}`;
    case 'wait':
      return `Wait ${action.ms} ms`;
    case 'screenshot':
      return 'Take a fresh screenshot';
    case 'zoom':
      return `Look closer at the region (${action.x}, ${action.y}) to (${action.toX}, ${action.toY})`;
    case 'finished':
      return action.summary ? `Finish: ${action.summary}` : 'Finish';
    case 'ask_user':
      return `Ask the user: ${action.question}`;
    case 'fail':
      return `Give up: ${action.reason}`;
    case 'query_long_term_memory':
      return `Ask the long-term memory: ${action.hint}`;
    case 'save_fact':
      return `Remember (${action.subject}) ${action.keyword}: ${action.values?.join('; ') ?? action.value ?? ''}`;
    case 'run_workflow':
      return `Run the workflow ${action.name}${workflowParams(action.params)}`;
    case 'click_element':
      return `Click element ${action.n} of the step's element list`;
    case 'type_into':
      return `Type ${shownTypedText(action, 200)} into element ${action.n} of the step's element list${action.secret === true || action.text === MASK ? ' (secret, masked)' : ''}`;
    default:
      // A type this version does not know (a newer record).
      return `Unknown action: ${JSON.stringify(action)}`;
  }
}

/** A workflow's parameters in words: ` with name="Ada", notes="…"`. */
function workflowParams(params: Readonly<Record<string, string>>): string {
  const entries = Object.entries(params);
  return entries.length === 0 ? '' : ` with ${entries.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(', ')}`;
}
