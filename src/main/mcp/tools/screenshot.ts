/**
 * `screenshot {display?}`: the display as an image every client accepts (the long edge at most
 * 1568 px, at most 1.15 megapixels, at most 900 KB), with its geometry. The connection keeps it:
 * `act`'s coordinates are its pixels.
 */
import type { ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ScreenshotLimits, Screenshot } from '../../service/desktops/direct-desktop';
import type { ToolCall } from '../connection';
import { defineTool, type ToolAnswer } from '../tool';

/** The strictest of the clients' limits: Claude's long edge and pixel count, and bytes well under 1 MB. */
export const CLIENT_IMAGE_LIMITS: ScreenshotLimits = { maxLongEdge: 1568, maxPixels: 1_150_000, maxBytes: 900_000 };

export const ScreenshotGeometrySchema = {
  width: z.number().int().describe('width of the image in pixels: the coordinates act takes'),
  height: z.number().int().describe('height of the image in pixels'),
  screenWidth: z.number().int().describe('width of the display in screen pixels'),
  screenHeight: z.number().int().describe('height of the display in screen pixels'),
  display: z.number().int().describe('the display index the image shows'),
};
type Geometry = z.output<z.ZodObject<typeof ScreenshotGeometrySchema>>;

export function geometryOf(shot: Screenshot): Geometry {
  const { image, bounds } = shot.frame;
  return { width: image.width, height: image.height, screenWidth: bounds.width, screenHeight: bounds.height, display: shot.display };
}

export function imageOf(shot: Screenshot): ImageContent {
  return { type: 'image', data: shot.image.toString('base64'), mimeType: shot.mime };
}

/** Takes a screenshot for the connection (act's coordinates are its pixels from now on). */
export async function takeScreenshot(call: ToolCall, display: number | undefined, settle = false): Promise<ToolAnswer<Geometry>> {
  const taken = await call.services.desktop.screenshot({ ...(display !== undefined ? { display } : {}), limits: CLIENT_IMAGE_LIMITS, settle });
  if (!taken.ok) return { ok: false, message: taken.error.message };
  call.state.latest = taken.value;
  return { ok: true, value: geometryOf(taken.value), content: [imageOf(taken.value)] };
}

export const screenshotTool = defineTool({
  name: 'screenshot',
  title: 'Screenshot',
  description:
    'Capture a display as a JPEG image (long edge at most 1568 px, at most 1.15 megapixels, at most 900 KB) and its geometry. ' +
    'The coordinates `act` takes are pixels of the latest screenshot of this session.',
  input: { display: z.number().int().min(0).optional().describe('display index (0, 1, ...); default: the primary display') },
  output: ScreenshotGeometrySchema,
  readOnly: true,
  destructive: false,
  openWorld: false,
  call: ({ display }, call) => takeScreenshot(call, display),
});
