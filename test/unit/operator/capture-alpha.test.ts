/**
 * nut-js hands over BGRA with alpha 0. Made RGBA it must be opaque: libvips premultiplies by alpha
 * when it resizes, and every capture made smaller than the screen (a 4K screen for a 1568 px image,
 * a 1280 px screen for a 960 px model) came out black.
 */
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { bgraToRgbaInPlace } from '../../../src/main/operator/capture';

it('turns BGRA with alpha 0 into opaque RGBA that keeps its colour when made smaller', async () => {
  const size = { width: 384, height: 216 };
  const bgra = Buffer.alloc(size.width * size.height * 4);
  for (let i = 0; i < bgra.length; i += 4) bgra.set([0xcc, 0x66, 0x33, 0x00], i);
  const rgba = bgraToRgbaInPlace(bgra);
  expect([...rgba.subarray(0, 8)]).toEqual([0x33, 0x66, 0xcc, 0xff, 0x33, 0x66, 0xcc, 0xff]);
  const smaller = await sharp(rgba, { raw: { ...size, channels: 4 } }).removeAlpha().resize(143, 80, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
  expect([...smaller.subarray(0, 3)]).toEqual([0x33, 0x66, 0xcc]);
});
