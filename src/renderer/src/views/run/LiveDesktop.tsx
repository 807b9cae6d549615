/**
 * The run's display, live: the server's multipart JPEG stream in an image named "Live desktop".
 * While the user holds the run (taken over) their clicks, drags, wheel turns and keys on it are
 * sent as actions in the display's pixels, one at a time and in order (typing while one is
 * carried out goes as one text). "Outline elements" lays the accessibility tree's elements over
 * it (ElementOutlines.tsx).
 */
import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type WheelEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActionInput } from '../../../../shared/actions';
import { NAMES } from '../../i18n/names';
import { buttonOf, keyAction, mergeTyping, pointerAction, toDisplay, wheelAction, type Size } from './live-input';
import { ElementOutlines, useElementSnapshot, type ReadElements } from './ElementOutlines';

export interface LiveDesktopProps {
  /** The stream's URL; null when the run has no live view. */
  src: string | null;
  takenOver: boolean;
  /** Carries one action out on the run's display (resolves when it was). */
  send: (action: ActionInput) => Promise<void>;
  /** The elements of the run's display now (`run:elements`), for the outlines. */
  readElements: ReadElements;
}

/** Sends actions one after the other, merging the typing that piles up meanwhile. */
function useSender(send: (action: ActionInput) => Promise<void>): (action: ActionInput) => void {
  const queue = useRef<ActionInput[]>([]);
  const busy = useRef(false);
  const sendRef = useRef(send);
  sendRef.current = send;
  return (action) => {
    queue.current.push(action);
    if (busy.current) return;
    busy.current = true;
    void (async () => {
      while (queue.current.length > 0) {
        const [next, ...rest] = mergeTyping(queue.current.splice(0));
        queue.current.unshift(...rest);
        if (next) await sendRef.current(next).catch(() => undefined);
      }
      busy.current = false;
    })();
  };
}

export function LiveDesktop({ src, takenOver, send, readElements }: LiveDesktopProps) {
  const { t } = useTranslation();
  const image = useRef<HTMLImageElement>(null);
  const pressed = useRef<{ x: number; y: number; button: number } | null>(null);
  const [shownSrc, setShownSrc] = useState(src);
  const enqueue = useSender(send);
  const [outlined, setOutlined] = useState(false);
  const elements = useElementSnapshot(readElements, outlined);
  // The display's own size: the outlines are drawn in its pixels (the image's natural size).
  const [natural, setNatural] = useState<Size | null>(null);

  // A new stream per run; the old one is closed by dropping its URL.
  useEffect(() => setShownSrc(src), [src]);
  // A stream that cannot be had (the run ended meanwhile, its operator cannot watch): said, not a broken image.
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (takenOver) image.current?.focus();
  }, [takenOver]);

  const at = (event: MouseEvent | WheelEvent): { x: number; y: number } | null => {
    const img = image.current;
    if (!img || img.naturalWidth === 0) return null;
    const box = img.getBoundingClientRect();
    const display: Size = { width: img.naturalWidth, height: img.naturalHeight };
    return toDisplay({ x: event.clientX - box.left, y: event.clientY - box.top }, { width: box.width, height: box.height }, display);
  };

  const onMouseDown = (event: MouseEvent) => {
    if (!takenOver) return;
    event.preventDefault();
    image.current?.focus();
    const point = at(event);
    if (point) pressed.current = { ...point, button: event.button };
  };
  const onMouseUp = (event: MouseEvent) => {
    const down = pressed.current;
    pressed.current = null;
    if (!takenOver || !down || down.button !== event.button) return;
    event.preventDefault();
    const point = at(event);
    if (point) enqueue(pointerAction(down, point, buttonOf(event.button), event.detail));
  };
  const onWheel = (event: WheelEvent) => {
    if (!takenOver) return;
    const point = at(event);
    const action = point && wheelAction(point, event.deltaX, event.deltaY);
    if (action) enqueue(action);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (!takenOver) return;
    const action = keyAction(event);
    if (!action) return;
    event.preventDefault();
    enqueue(action);
  };

  if (!shownSrc || failed === shownSrc) {
    return (
      <figure className="live-desktop live-desktop-empty">
        <figcaption>{t('live.none')}</figcaption>
      </figure>
    );
  }
  const display = natural ?? (image.current && image.current.naturalWidth > 0 ? { width: image.current.naturalWidth, height: image.current.naturalHeight } : null);
  return (
    <figure className={`live-desktop${takenOver ? ' taken-over' : ''}`}>
      <label className="inline-check live-outline-toggle">
        <input type="checkbox" aria-label={NAMES.outlineElements} checked={outlined} onChange={(event) => setOutlined(event.target.checked)} />
        {t('live.outline')}
      </label>
      <div className="live-stage">
        <img
          ref={image}
          src={shownSrc}
          alt={NAMES.liveDesktop}
          draggable={false}
          tabIndex={takenOver ? 0 : -1}
          onMouseDown={onMouseDown}
          onMouseUp={onMouseUp}
          onWheel={onWheel}
          onKeyDown={onKeyDown}
          onContextMenu={(event) => takenOver && event.preventDefault()}
          onError={() => setFailed(shownSrc)}
          onLoad={() => {
            const img = image.current;
            // Every frame of the stream loads: only a new size is news.
            if (img && img.naturalWidth > 0) setNatural((was) => (was?.width === img.naturalWidth && was.height === img.naturalHeight ? was : { width: img.naturalWidth, height: img.naturalHeight }));
          }}
        />
        {outlined && elements?.ok && display && <ElementOutlines snapshot={elements.value} width={display.width} height={display.height} />}
      </div>
      {outlined && elements && !elements.ok && (
        <p className="note" role="status">
          {t('live.outlinesUnavailable', { message: elements.error.message })}
        </p>
      )}
      <figcaption>{takenOver ? t('live.yours') : t('live.watching')}</figcaption>
    </figure>
  );
}
