/**
 * What makes a screenshot fit every client: the tool's limits as the issue fixes them, and a JPEG
 * over the byte limit made to fit (a lower quality, then fewer pixels), decoding to the size it
 * says, with real libvips on a picture of noise (the hardest to compress).
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { jpegWithin } from '../../../src/main/service/desktops/direct-desktop';
import { CLIENT_IMAGE_LIMITS } from '../../../src/main/mcp/tools/screenshot';

function noise(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.floor(Math.random() * 256);
  return pixels;
}

describe('the screenshot limits', () => {
  it('are those every client accepts: 1568 px on the long edge, 1.15 megapixels, 900 KB', () => {
    expect(CLIENT_IMAGE_LIMITS).toEqual({ maxLongEdge: 1568, maxPixels: 1_150_000, maxBytes: 900_000 });
  });

  it('a JPEG over the byte limit comes back within it at the same size, or smaller and saying so', async () => {
    const size = { width: 1429, height: 803 };
    const heavy = await sharp(noise(size.width, size.height), { raw: { ...size, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
    expect(heavy.length).toBeGreaterThan(900_000);
    const fitted = await jpegWithin(heavy, size, 900_000);
    expect(fitted.image.length).toBeLessThanOrEqual(900_000);
    expect(fitted.size).toEqual(size);
    const decoded = await sharp(fitted.image).metadata();
    expect([decoded.width, decoded.height, decoded.format]).toEqual([size.width, size.height, 'jpeg']);

    // A limit no quality meets at this size: the image is made smaller, and the size said is the one it has.
    const tight = await jpegWithin(heavy, size, 150_000);
    expect(tight.image.length).toBeLessThanOrEqual(150_000);
    expect(tight.size.width).toBeLessThan(size.width);
    expect(Math.abs(tight.size.width / tight.size.height - size.width / size.height)).toBeLessThan(0.01);
    const smaller = await sharp(tight.image).metadata();
    expect([smaller.width, smaller.height]).toEqual([tight.size.width, tight.size.height]);
  });
});
