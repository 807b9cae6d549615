/**
 * A session's image by URL. A live run's newest screenshot may still be on its way to the disk
 * when its event arrives (the recorder writes in the background), so a failed load is tried again
 * a few times, a little later each time.
 */
import { useEffect, useState, type CSSProperties } from 'react';

const RETRIES = 6;

export function SessionImage({ src, alt, className, width, height, style }: { src: string; alt: string; className?: string; width?: number; height?: number; style?: CSSProperties | undefined }) {
  const [attempt, setAttempt] = useState(0);
  useEffect(() => setAttempt(0), [src]);
  const url = attempt === 0 ? src : `${src}${src.includes('?') ? '&' : '?'}retry=${attempt}`;
  return (
    <img
      src={url}
      alt={alt}
      className={className}
      width={width}
      height={height}
      style={style}
      decoding="async"
      onError={() => {
        if (attempt < RETRIES) setTimeout(() => setAttempt((n) => (n === attempt ? n + 1 : n)), 250 * (attempt + 1));
      }}
    />
  );
}
