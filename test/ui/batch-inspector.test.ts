/**
 * The step inspector shows a batch as such, against the real core (`mnemo serve`) in Debian's
 * Chromium: a recorded step of four actions whose batch stopped after the first (the page changed
 * under it) says how much of it ran, and each action not run says why. The picture goes to
 * docs/screenshots/.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { BATCH_STEP, recordFixtureSession, TASK } from '../fixtures/session-fixture';
import { closeUiTest, dataDirWith, openApp, serveApp, startUiDisplay, type ServedApp, type UiDisplay } from '../fixtures/ui/app-harness';

const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
const pages: Page[] = [];
const parts: { display?: UiDisplay; app?: ServedApp; browser?: Browser; dataDir?: string; sessionId?: string } = {};

beforeAll(async () => {
  parts.display = await startUiDisplay(':242');
  parts.dataDir = dataDirWith({}, tmpdir());
  const recorded = await recordFixtureSession(parts.dataDir, { steps: [BATCH_STEP], missingStep: null });
  parts.sessionId = recorded.sessionId;
  // The step's raw reply, as a run keeps it (the inspector shows it).
  mkdirSync(join(recorded.directory, 'replies'), { recursive: true, mode: 0o700 });
  writeFileSync(join(recorded.directory, 'replies', 'step-0001.txt'), JSON.stringify({ content: [{ type: 'text', text: BATCH_STEP.thought }] }), { mode: 0o600 });
  parts.app = await serveApp(parts.dataDir, parts.display.display);
  parts.browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

afterAll(async () => {
  await closeUiTest({ pages, browser: parts.browser, app: parts.app, servers: [], display: parts.display });
  if (parts.dataDir) rmSync(parts.dataDir, { recursive: true, force: true });
});

describe('the step inspector', () => {
  it('shows a batch cut short: how much ran, and why the rest did not', async () => {
    const { app, browser } = parts;
    if (!app || !browser) throw new Error('the suite is not set up');
    const { page, problems } = await openApp(browser, app);
    pages.push(page);
    await page.getByRole('link', { name: 'History' }).click();
    // The list answers from `mnemo serve`; on a busy machine it has taken over 30 s (CI). A list that
    // never shows the session says what the view showed instead.
    const open = page.getByRole('button', { name: `Open ${TASK}` });
    await open.waitFor({ timeout: 120_000 }).catch(async (error: Error) => {
      throw new Error(`${error.message}\nthe History view showed: ${await page.locator('.history-view').innerText().catch(() => '(nothing)')}`);
    });
    await open.click();
    const steps = page.getByRole('list', { name: 'Steps' }).getByRole('listitem');
    await expect.poll(() => steps.count(), { timeout: 30_000 }).toBe(1);
    await steps.nth(0).getByRole('button').click();
    const inspector = page.getByRole('complementary', { name: 'Step 1' });
    await inspector.waitFor();
    await expect.poll(() => inspector.locator('.batch-summary').innerText()).toBe('A batch of 4 actions: 1 ran, 3 not run');
    const actions = inspector.locator('.action-list > li');
    expect(await actions.count()).toBe(4);
    expect(await actions.nth(0).getAttribute('class')).toBe('result-ok');
    for (const index of [1, 2, 3]) {
      expect(await actions.nth(index).getAttribute('class')).toBe('result-not-run');
      expect(await actions.nth(index).locator('.action-result').innerText()).toBe(`not run: ${BATCH_STEP.notRun!.reason}`);
    }
    await inspector.screenshot({ path: join(SCREENSHOTS, 'inspector-batch.png') });
    expect(problems).toEqual([]);
  });
});
