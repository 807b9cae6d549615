/**
 * A list that renders only the rows in view (fixed row height), so a 2,000-step timeline costs
 * what 20 rows cost. It follows the end as rows are added, unless the user scrolled away; a
 * button brings them back. `revealIndex` scrolls a row into view (the scrubber's step).
 */
import { useCallback, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

interface Props {
  count: number;
  rowHeight: number;
  label: string;
  renderRow: (index: number) => ReactNode;
  /** Keep the last row in view while new rows arrive. */
  follow: boolean;
  revealIndex?: number | null;
  followLabel: string;
  className?: string;
}

const OVERSCAN = 6;

export function VirtualList({ count, rowHeight, label, renderRow, follow, revealIndex, followLabel, className }: Props) {
  const viewport = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [following, setFollowing] = useState(true);
  // Scrolls the list itself makes must not count as the user scrolling away.
  const programmaticTop = useRef<number | null>(null);

  useLayoutEffect(() => {
    const element = viewport.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    setHeight(element.clientHeight);
    return () => observer.disconnect();
  }, []);

  const scrollTo = useCallback((top: number) => {
    const element = viewport.current;
    if (!element) return;
    element.scrollTop = top;
    programmaticTop.current = element.scrollTop;
    setScrollTop(element.scrollTop);
  }, []);

  useLayoutEffect(() => {
    if (follow && following) scrollTo(count * rowHeight);
  }, [count, follow, following, rowHeight, scrollTo, height]);

  useLayoutEffect(() => {
    if (revealIndex === null || revealIndex === undefined) return;
    const element = viewport.current;
    if (!element) return;
    const top = revealIndex * rowHeight;
    if (top < element.scrollTop || top + rowHeight > element.scrollTop + element.clientHeight) scrollTo(top - element.clientHeight / 2 + rowHeight / 2);
  }, [revealIndex, rowHeight, scrollTo]);

  const onScroll = () => {
    const element = viewport.current;
    if (!element) return;
    setScrollTop(element.scrollTop);
    if (programmaticTop.current !== null && Math.abs(element.scrollTop - programmaticTop.current) < 2) return;
    programmaticTop.current = null;
    const atEnd = element.scrollTop + element.clientHeight >= element.scrollHeight - rowHeight / 2;
    setFollowing(atEnd);
  };

  // Following, the rows are those at the end: where the effect above is about to scroll. Rendering
  // them now, not the rows at the old position first, spares a second render and layout when a
  // long session arrives at once.
  const top = follow && following ? Math.max(0, count * rowHeight - height) : scrollTop;
  const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / rowHeight) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let index = first; index < last; index++) {
    rows.push(
      <li key={index} className="virtual-row" aria-setsize={count} aria-posinset={index + 1} style={{ top: index * rowHeight, height: rowHeight }}>
        {renderRow(index)}
      </li>,
    );
  }
  return (
    <div className={`virtual-list ${className ?? ''}`}>
      <div ref={viewport} className="virtual-viewport" onScroll={onScroll}>
        <ul aria-label={label} className="virtual-rows" style={{ height: count * rowHeight }}>
          {rows}
        </ul>
      </div>
      {follow && !following && count > 0 && (
        <button type="button" className="follow-button" onClick={() => setFollowing(true)}>
          {followLabel}
        </button>
      )}
    </div>
  );
}
