/**
 * The elements of the run's display outlined over the live view (the live view's "Outline
 * elements" toggle): the active window's snapshot (`run:elements`), read again about once a second
 * while the toggle is on, each element a box in display pixels laid over the image (which shows
 * the display scaled to fit). Interactive elements in a strong line with their number; text to
 * read in a faint one. The layer lets every pointer event through, so a takeover still works.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Result } from '../../../../shared/contract';
import type { ElementSnapshot } from '../../../../shared/elements';
import { NAMES } from '../../i18n/names';

/** How often the outlines follow the screen while shown. */
const REFRESH_MS = 1000;

export type ReadElements = () => Promise<Result<ElementSnapshot>>;

/** Reads the snapshot while `on`, again once each answer came and a refresh went by; the latest answer. */
export function useElementSnapshot(read: ReadElements, on: boolean): Result<ElementSnapshot> | null {
  const [latest, setLatest] = useState<Result<ElementSnapshot> | null>(null);
  useEffect(() => {
    if (!on) {
      setLatest(null);
      return;
    }
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = async () => {
      const answer = await read().catch((error: unknown): Result<ElementSnapshot> => ({ ok: false, error: { kind: 'internal', message: String(error) } }));
      if (!current) return;
      setLatest(answer);
      timer = setTimeout(() => void next(), REFRESH_MS);
    };
    void next();
    return () => {
      current = false;
      if (timer) clearTimeout(timer);
    };
  }, [read, on]);
  return latest;
}

/** The outlines, sized to the display (`width` x `height`: the live image's own pixels). */
export function ElementOutlines({ snapshot, width, height }: { snapshot: ElementSnapshot; width: number; height: number }) {
  const { t } = useTranslation();
  const layer = useRef<SVGSVGElement>(null);
  // How wide the display is shown, in CSS pixels: the labels keep 12 of them at any scale.
  const [shownWidth, setShownWidth] = useState(width);
  useEffect(() => {
    const svg = layer.current;
    if (!svg) return;
    const measure = () => setShownWidth(svg.clientWidth > 0 ? svg.clientWidth : width);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(svg);
    return () => observer.disconnect();
  }, [width]);
  const font = Math.round((12 * width) / Math.max(1, shownWidth));
  return (
    <svg ref={layer} className="element-outlines" role="img" aria-label={NAMES.elementOutlines} viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none">
      <desc>{t('live.outlinesDesc', { count: snapshot.elements.length, window: snapshot.window.name || snapshot.window.app })}</desc>
      {snapshot.elements.map((element) => {
        const { x, y, width: w, height: h } = element.bounds;
        return (
          <g key={element.ref} className={element.interactive ? 'outline interactive' : 'outline'} data-n={element.n}>
            <title>{`${element.n}. ${element.role}${element.name ? ` "${element.name}"` : ''}`}</title>
            <rect x={x} y={y} width={w} height={h} />
            {element.interactive && (
              <text x={x + 2} y={Math.max(font, y - 2)} fontSize={font}>
                {element.n}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
