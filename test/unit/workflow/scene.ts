/**
 * Screens drawn for the workflow tests: greyscale pixels painted directly (for the pure matching
 * functions), and the same scenes as JPEG through sharp (for the runner, which decodes what the
 * operator captures). A scene is a background and boxes: a face of one grey with a border and,
 * optionally, a caption-like pattern of strokes on it.
 */
import sharp from 'sharp';
import type { GreyImage } from '../../../src/main/replay/divergence';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
  face: number;
  border?: number;
  /** Strokes in the middle, a stand-in for a caption; the number picks the pattern. */
  strokes?: number;
}

export interface Scene {
  width: number;
  height: number;
  background: number;
  boxes: Box[];
}

export function paint(scene: Scene): GreyImage {
  const pixels = new Uint8Array(scene.width * scene.height).fill(scene.background);
  const set = (x: number, y: number, value: number) => {
    if (x >= 0 && y >= 0 && x < scene.width && y < scene.height) pixels[y * scene.width + x] = value;
  };
  for (const box of scene.boxes) {
    for (let y = box.y; y < box.y + box.height; y++) {
      for (let x = box.x; x < box.x + box.width; x++) {
        const edge = x === box.x || y === box.y || x === box.x + box.width - 1 || y === box.y + box.height - 1;
        set(x, y, edge && box.border !== undefined ? box.border : box.face);
      }
    }
    if (box.strokes !== undefined) {
      const cx = box.x + Math.floor(box.width / 2);
      const cy = box.y + Math.floor(box.height / 2);
      for (let i = 0; i < 5; i++) {
        const offset = ((box.strokes * 7 + i * 5) % 11) - 5;
        for (let y = cy - 4; y <= cy + 4; y++) set(cx - 10 + i * 5, y + (i % 2 === 0 ? 0 : offset % 3), 30);
        for (let x = cx - 10 + i * 5; x < cx - 7 + i * 5; x++) set(x, cy - 4 + ((box.strokes + i) % 3) * 4, 30);
      }
    }
  }
  return { width: scene.width, height: scene.height, pixels };
}

/** The scene as an encoded image (the grey copied to three channels). */
export async function encode(scene: Scene, format: 'jpeg' | 'png' = 'png'): Promise<Buffer> {
  const grey = paint(scene);
  const image = sharp(Buffer.from(grey.pixels), { raw: { width: grey.width, height: grey.height, channels: 1 } });
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 90 }).toBuffer();
}

export const moved = (scene: Scene, dx: number, dy: number, which: (box: Box, i: number) => boolean = () => true): Scene => ({
  ...scene,
  boxes: scene.boxes.map((box, i) => (which(box, i) ? { ...box, x: box.x + dx, y: box.y + dy } : box)),
});

/** A small form: a wide field, a tall text area, a button with a caption; and two buttons elsewhere. */
export const FORM: Scene = {
  width: 480,
  height: 300,
  background: 240,
  boxes: [
    { x: 200, y: 40, width: 220, height: 18, face: 255, border: 100 },
    { x: 200, y: 70, width: 220, height: 60, face: 255, border: 100 },
    { x: 220, y: 150, width: 60, height: 22, face: 215, border: 60, strokes: 1 },
    { x: 10, y: 10, width: 44, height: 30, face: 225, border: 60, strokes: 2 },
    { x: 400, y: 260, width: 44, height: 30, face: 225, border: 60, strokes: 3 },
  ],
};
