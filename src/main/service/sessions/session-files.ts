/**
 * A file of a session folder for the window: a screenshot (or a small thumbnail of one for
 * strips and lists) or a raw reply. Served by `mnemo serve` over HTTP and by the app over its
 * `mnemo-file:` protocol; nothing outside the session folder is ever read.
 */
import { extname } from 'node:path';
import { loadSharp } from '../../image/sharp';
import type { RunService, ServiceResult } from '../run-service';

const FILE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

export interface SessionFile {
  data: Buffer;
  contentType: string;
}

/** Thumbnails are at most this wide. */
const MAX_THUMBNAIL = 640;

export class SessionFiles {
  /** Thumbnails made once (a strip asks for the same ones again and again). */
  private readonly thumbnails = new Map<string, Buffer>();

  constructor(private readonly service: RunService) {}

  /** `parts` is the path inside the session folder; `thumbnailWidth` > 0 asks for a JPEG that wide. */
  async read(sessionId: string, parts: readonly string[], thumbnailWidth = 0): Promise<ServiceResult<SessionFile>> {
    const invalid = parts.length === 0 || parts.some((part) => part === '' || part === '.' || part === '..' || /[\\\0]/.test(part));
    const relative = parts.join('/');
    const contentType = FILE_TYPES[extname(relative).toLowerCase()];
    if (invalid || !contentType) return { ok: false, error: { kind: 'not_found', message: `no such file ${relative} in a session` } };
    // Where the session is, not the session: its record (megabytes for a long run) is not read for each image.
    const place = await this.service.records.place(sessionId);
    if (!place.ok) return place;
    // From the session folder, or fetched from the shared store the session was read from.
    const file = await this.service.records.file(place.value, relative);
    if (!file.ok) return { ok: false, error: { kind: 'not_found', message: file.message } };
    const data = file.data;
    if (!contentType.startsWith('image/') || !Number.isInteger(thumbnailWidth) || thumbnailWidth <= 0) return { ok: true, value: { data, contentType } };
    const width = Math.min(thumbnailWidth, MAX_THUMBNAIL);
    const key = `${place.value.meta.id}/${relative}@${width}`;
    let thumbnail = this.thumbnails.get(key);
    if (!thumbnail) {
      thumbnail = await (await loadSharp())(data).resize({ width }).jpeg({ quality: 70 }).toBuffer();
      if (this.thumbnails.size > 2000) this.thumbnails.clear();
      this.thumbnails.set(key, thumbnail);
    }
    return { ok: true, value: { data: thumbnail, contentType: 'image/jpeg' } };
  }
}
