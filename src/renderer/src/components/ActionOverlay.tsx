/**
 * What a step did, drawn over its screenshot (the same marks as the HTML report): a ring where it
 * clicked, a path with an arrow for a drag, an arrow for a scroll, a label for typed text and
 * keys, a red cross where an action failed. Coordinates are the screenshot's own pixels, so the
 * SVG's viewBox is the image size and it scales with the image.
 */
import { useId } from 'react';
import { actionPoints, dragPath, type Action } from '../../../shared/actions';
import type { ActionResult } from '../../../shared/action-result';
import { shownTypedText } from '../../../shared/describe-action';

const BUTTON_CLASS = { left: 'mark-left', right: 'mark-right', middle: 'mark-middle' } as const;
const SCROLL_VECTORS = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] } as const;

interface Props {
  actions: readonly Action[];
  /** At each action's index: its result, or null (not run, or answered by the agent itself). */
  results: ReadonlyArray<ActionResult | null | undefined>;
  width: number;
  height: number;
}

export function ActionOverlay({ actions, results, width, height }: Props) {
  // A plain id: url(#…) references must not need escaping.
  const arrowId = `arrow${useId().replace(/[^\w-]/g, '')}`;
  const u = Math.max(1.5, Math.min(width, height) / 90);
  const centre = { x: width / 2, y: height / 2 };
  let lastPoint = centre;
  const marks = actions.map((action, index) => {
    const failed = results[index]?.ok === false;
    const [point] = actionPoints(action);
    if (point) lastPoint = point;
    const key = `${index}-${action.type}`;
    const cross = failed && point ? <Cross key={`${key}-x`} x={point.x} y={point.y} u={u} /> : null;
    switch (action.type) {
      case 'click':
      case 'double_click':
      case 'triple_click': {
        const rings = action.type === 'click' ? 1 : action.type === 'double_click' ? 2 : 3;
        return (
          <g key={key} className={`mark ${BUTTON_CLASS[action.button]}`}>
            {Array.from({ length: rings }, (_, ring) => (
              <circle key={ring} cx={action.x} cy={action.y} r={u * (2.2 + ring * 1.2)} className="mark-ring" strokeWidth={u * 0.45} />
            ))}
            <circle cx={action.x} cy={action.y} r={u * 0.6} className="mark-dot" />
            {cross}
          </g>
        );
      }
      case 'mouse_move':
        return (
          <g key={key} className="mark mark-move">
            <circle cx={action.x} cy={action.y} r={u * 1.4} className="mark-ring" strokeWidth={u * 0.35} />
            {cross}
          </g>
        );
      case 'drag': {
        const path = dragPath(action);
        return (
          <g key={key} className={`mark ${BUTTON_CLASS[action.button]}`}>
            <polyline points={path.map((p) => `${p.x},${p.y}`).join(' ')} className="mark-path" strokeWidth={u * 0.5} markerEnd={`url(#${arrowId})`} />
            {path[0] && <circle cx={path[0].x} cy={path[0].y} r={u * 0.8} className="mark-dot" />}
            {cross}
          </g>
        );
      }
      case 'scroll': {
        const at = point ?? centre;
        const [dx, dy] = SCROLL_VECTORS[action.direction];
        const length = u * 8;
        return (
          <g key={key} className="mark mark-scroll">
            <line x1={at.x} y1={at.y} x2={at.x + dx * length} y2={at.y + dy * length} className="mark-path" strokeWidth={u * 0.6} markerEnd={`url(#${arrowId})`} />
            {cross}
          </g>
        );
      }
      case 'type':
      case 'hotkey': {
        const text = action.type === 'type' ? shownTypedText(action) : action.keys.join('+');
        return (
          <g key={key} className={`mark mark-key${failed ? ' mark-failed' : ''}`}>
            <text x={lastPoint.x + u * 3} y={lastPoint.y - u * 3} fontSize={u * 2.2} className="mark-label">
              {action.type === 'type' ? `⌨ ${text}` : `⌘ ${text}`}
            </text>
          </g>
        );
      }
      default:
        return cross;
    }
  });
  return (
    <svg className="action-overlay" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true">
      <defs>
        <marker id={arrowId} viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" className="mark-arrow" />
        </marker>
      </defs>
      {marks}
    </svg>
  );
}

function Cross({ x, y, u }: { x: number; y: number; u: number }) {
  const r = u * 2;
  return (
    <g className="mark-cross">
      <line x1={x - r} y1={y - r} x2={x + r} y2={y + r} strokeWidth={u * 0.7} />
      <line x1={x - r} y1={y + r} x2={x + r} y2={y - r} strokeWidth={u * 0.7} />
    </g>
  );
}
