/**
 * `mnemo mcp` on a 3840x2160 display, where the screenshot is far smaller than the screen: the
 * image still decodes to the size it states and keeps within every client's limits (1568 px long
 * edge, 1.15 megapixels, 900 KB; test/unit/mcp/image-limits.test.ts makes one too big in bytes
 * fit), and `act`'s coordinates, pixels of that image, land where they
 * point on the screen (the page in kiosk Chromium on that display reports the click and the text).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { launchKiosk, type Kiosk } from '../fixtures/desktop/chromium';
import { runX } from '../fixtures/desktop/display';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { startSizedDisplay, type SizedDisplay } from '../fixtures/desktop/sized-display';
import { connectStdio, expectImageAsStated, textOf, type ScreenshotGeometry, type StdioMcp } from '../fixtures/mcp-client';

const SCREEN = { width: 3840, height: 2160 };
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-mcp-4k-'));

let display: SizedDisplay;
let mcp: StdioMcp;
beforeAll(async () => {
  display = await startSizedDisplay(SCREEN.width, SCREEN.height);
  mcp = await connectStdio(['--data-dir', join(scratch, 'data')], { env: { DISPLAY: display.display } });
}, 180_000);
afterAll(async () => {
  await mcp?.close();
  await display?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function screenshot(): Promise<{ geometry: ScreenshotGeometry; bytes: Buffer }> {
  const result = (await mcp.client.callTool({ name: 'screenshot', arguments: {} })) as CallToolResult & { structuredContent: ScreenshotGeometry };
  expect(result.isError, textOf(result)).toBeFalsy();
  return { geometry: result.structuredContent, bytes: await expectImageAsStated(result, result.structuredContent) };
}

describe('a 3840x2160 display', () => {
  it('screenshot: the image states its size and the screen, within every client limit, and shows the screen', async () => {
    // A colour of its own on the screen; the image, 2.7 times smaller, must show it (not black).
    await runX(display.display, 'xsetroot', ['-solid', '#3366cc']);
    const { geometry, bytes } = await screenshot();
    const { channels } = await sharp(bytes).stats();
    const off = channels.map((channel, index) => Math.abs(channel.mean - ([0x33, 0x66, 0xcc][index] as number)));
    expect(Math.max(...off), `mean colour ${channels.map((channel) => channel.mean.toFixed(1)).join(', ')}`).toBeLessThan(4);
    expect(geometry).toMatchObject({ screenWidth: 3840, screenHeight: 2160, display: 0 });
    // The pixel count binds here (1568 px wide would be 1.38 MP), the aspect ratio kept.
    expect(geometry.width * geometry.height).toBeGreaterThan(1_100_000);
    expect(Math.abs(geometry.width / geometry.height - 16 / 9)).toBeLessThan(0.01);
  });

  describe('with the page in kiosk Chromium', () => {
    let server: EventServer;
    let kiosk: Kiosk;
    beforeAll(async () => {
      server = await startEventServer();
      kiosk = await launchKiosk(server, { display: display.display });
    }, 120_000);
    afterAll(async () => {
      await kiosk?.close();
      await server?.close();
    });

    it('act: image pixels land on the screen where they point: the field gets the click and the text', async () => {
      const { geometry } = await screenshot();
      const field = kiosk.toScreen(centreOf(TARGET_LAYOUT.field));
      const toImage = (point: { x: number; y: number }) => ({ x: Math.round((point.x * geometry.width) / SCREEN.width), y: Math.round((point.y * geometry.height) / SCREEN.height) });
      const clicked = (await mcp.client.callTool({ name: 'act', arguments: { action: { type: 'click', ...toImage(field) } } })) as CallToolResult & { structuredContent: { points: Array<{ x: number; y: number }> } };
      expect(clicked.isError, textOf(clicked)).toBeFalsy();
      const [landed] = clicked.structuredContent.points;
      // Within the screen pixels one image pixel covers (3840 / 1429 ≈ 2.7).
      expect(Math.abs((landed?.x ?? 0) - field.x)).toBeLessThanOrEqual(3);
      expect(Math.abs((landed?.y ?? 0) - field.y)).toBeLessThanOrEqual(3);
      await server.waitForType('click', (event) => event.target === 'field');
      const typed = await mcp.client.callTool({ name: 'act', arguments: { action: { type: 'type', text: 'Ünïcode? No: [brackets] & {braces}' } } });
      expect(typed.isError, textOf(typed as CallToolResult)).toBeFalsy();
      await expect.poll(async () => (await server.state()).field.value).toBe('Ünïcode? No: [brackets] & {braces}');
    });
  });
});
