/**
 * The exported HTML report in real headless Chromium, opened from disk (file://) with nothing
 * else around: a session recorded with FileRunRecorder, exported by the real `mnemo export`,
 * then walked step by step with the scrubber. Every request the page makes is recorded: only the
 * file itself (and data URLs) may appear.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_STEPS, IMAGE, INJECTED_THOUGHT, recordFixtureSession, type RecordedFixture } from '../fixtures/session-fixture';
import { HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { runMnemo } from '../fixtures/mnemo-cli';

const CHROMIUM_ARGS = HEADLESS_CHROMIUM_ARGS;


async function exportHtml(sessionId: string, dataDir: string, html: string): Promise<{ code: number | null; stderr: string }> {
  const run = await runMnemo(['export', sessionId, '--html', html, '--data-dir', dataDir]);
  return { code: run.code, stderr: run.stderr };
}

interface Opened {
  page: Page;
  problems: string[];
  requests: string[];
  dialogs: string[];
}

async function open(browser: Browser, url: string, viewport = { width: 1400, height: 1000 }): Promise<Opened> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const requests: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A CSP violation is reported here too.
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('request', (request) => requests.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(url);
  return { page, problems, requests, dialogs };
}

interface ShownStep {
  count: number;
  step: string | null;
  heading: string | null;
  position: string | null;
  range: string | null;
  thought: string | null;
  markers: number;
  failedMarkers: number;
  imageWidth: number | null;
  imageComplete: boolean | null;
  note: string | null;
  overlayMatchesImage: boolean | null;
  prevDisabled: boolean | null;
  nextDisabled: boolean | null;
}

// Page scripts are strings: this project type-checks tests without the DOM library.
const VISIBLE_SECTIONS = `Array.from(document.querySelectorAll('section.step')).filter((s) => !s.hidden && s.offsetParent !== null)`;

/** What the page shows now: the visible sections, and the details of the one in view. */
function visibleStep(page: Page): Promise<ShownStep> {
  return page.evaluate<ShownStep>(`(() => {
    const visible = ${VISIBLE_SECTIONS};
    const section = visible[0];
    const image = section ? section.querySelector('figure.shot img') : null;
    const overlay = section ? section.querySelector('svg.overlay') : null;
    const imageBox = image ? image.getBoundingClientRect() : null;
    const overlayBox = overlay ? overlay.getBoundingClientRect() : null;
    const close = (a, b) => Math.abs(a - b) < 1;
    const text = (selector) => { const element = section ? section.querySelector(selector) : null; return element ? element.textContent : null; };
    const byId = (id) => document.getElementById(id);
    return {
      count: visible.length,
      step: section ? section.dataset.step : null,
      heading: text('h2'),
      position: byId('position') ? byId('position').textContent : null,
      range: byId('scrub') ? byId('scrub').value : null,
      thought: text('.thought'),
      markers: overlay ? overlay.querySelectorAll('g.marker').length : 0,
      failedMarkers: overlay ? overlay.querySelectorAll('g.marker[data-failed]').length : 0,
      imageWidth: image ? image.naturalWidth : null,
      imageComplete: image ? image.complete : null,
      note: text('.shot-note'),
      // The overlay covers the image exactly, at the size it is shown.
      overlayMatchesImage: imageBox && overlayBox
        ? close(imageBox.width, overlayBox.width) && close(imageBox.height, overlayBox.height) && close(imageBox.left, overlayBox.left) && close(imageBox.top, overlayBox.top)
        : null,
      prevDisabled: byId('prev') ? byId('prev').disabled : null,
      nextDisabled: byId('next') ? byId('next').disabled : null,
    };
  })()`);
}

describe('HTML report in Chromium', () => {
  let dataDir: string;
  let fixture: RecordedFixture;
  let reportPath: string;
  let reportUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mnemo-report-ui-'));
    fixture = await recordFixtureSession(dataDir, { missingStep: 5 });
    reportPath = join(dataDir, 'report.html');
    const exported = await exportHtml(fixture.sessionId, dataDir, reportPath);
    if (exported.code !== 0) throw new Error(`mnemo export failed (${exported.code}): ${exported.stderr}`);
    reportUrl = pathToFileURL(reportPath).href;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('shows every step through the scrubber, offline, without running recorded text', async () => {
    const { page, problems, requests, dialogs } = await open(browser, reportUrl);
    await expect.poll(() => page.evaluate<string>('document.readyState')).toBe('complete');

    const seen: string[] = [];
    for (const [index, fixtureStep] of FIXTURE_STEPS.entries()) {
      if (index > 0) {
        // Each way of moving: the Next button, the arrow key, the range input itself.
        if (index % 3 === 1) await page.click('#next');
        else if (index % 3 === 2) await page.keyboard.press('ArrowRight');
        else await page.locator('#scrub').fill(String(index + 1));
      }
      const shown = await visibleStep(page);
      expect(shown.count, `step ${fixtureStep.step}: one section shown`).toBe(1);
      expect(shown.step).toBe(String(fixtureStep.step));
      expect(shown.heading).toMatch(new RegExp(`^Step ${fixtureStep.step}\\b`));
      expect(shown.position).toBe(`Step ${fixtureStep.step} (${index + 1} of ${FIXTURE_STEPS.length})`);
      expect(shown.range).toBe(String(index + 1));
      expect(shown.thought).toBe(fixtureStep.thought);
      expect(shown.markers).toBe(fixtureStep.actions.length);
      expect(shown.failedMarkers).toBe(fixtureStep.results.filter((result) => result && !result.ok).length);
      if (fixtureStep.step === fixture.missingStep) {
        expect(shown.imageWidth).toBeNull();
        expect(shown.note).toBe('screenshot missing');
      } else {
        expect(shown.imageComplete).toBe(true);
        expect(shown.imageWidth).toBe(IMAGE.width);
        expect(shown.overlayMatchesImage).toBe(true);
      }
      expect(shown.prevDisabled).toBe(index === 0);
      expect(shown.nextDisabled).toBe(index === FIXTURE_STEPS.length - 1);
      seen.push(shown.step as string);
    }
    expect(seen).toEqual(FIXTURE_STEPS.map((s) => String(s.step)));

    // Back with the arrow key, and Home.
    await page.keyboard.press('ArrowLeft');
    expect((await visibleStep(page)).step).toBe(String(FIXTURE_STEPS.at(-2)?.step));
    await page.keyboard.press('Home');
    expect((await visibleStep(page)).step).toBe('1');

    // "Show all steps" shows them all at once.
    await page.check('#show-all');
    const all = await page.evaluate<string[]>(`${VISIBLE_SECTIONS}.map((s) => s.dataset.step)`);
    expect(all).toEqual(FIXTURE_STEPS.map((s) => String(s.step)));

    // The injection in step 1 is text on the page, and nothing ran.
    expect(await page.locator('section.step[data-step="1"] .thought').textContent()).toBe(INJECTED_THOUGHT);
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    expect(await page.evaluate<number>("document.querySelectorAll('script').length")).toBe(1);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    // Offline: the file itself, and data URLs at most.
    expect(requests.length).toBeGreaterThan(0);
    for (const url of requests) expect(url === reportUrl || url.startsWith('data:'), url.slice(0, 80)).toBe(true);
    await page.close();
  });

  it('opens at the step named in the address, and scales the markers with the image', async () => {
    const { page, problems } = await open(browser, `${reportUrl}#step-3`, { width: 700, height: 900 });
    const shown = await visibleStep(page);
    expect(shown.step).toBe('3');
    // Narrow window: the image is shown smaller than its pixels, and the overlay with it.
    const sizes = await page.evaluate<{ shownWidth: number; ringCentreX: number; ringCentreY: number }>(`(() => {
      const section = document.querySelector('section.step[data-step="3"]');
      const box = section.querySelector('figure.shot img').getBoundingClientRect();
      const ring = section.querySelector('g.marker-click circle').getBoundingClientRect();
      return { shownWidth: box.width, ringCentreX: ring.left + ring.width / 2 - box.left, ringCentreY: ring.top + ring.height / 2 - box.top };
    })()`);
    expect(sizes.shownWidth).toBeLessThan(IMAGE.width);
    const scale = sizes.shownWidth / IMAGE.width;
    // Step 3 clicks at (200, 150) in image pixels.
    expect(sizes.ringCentreX).toBeCloseTo(200 * scale, 0);
    expect(sizes.ringCentreY).toBeCloseTo(150 * scale, 0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows every step without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(reportUrl);
    const visible = await page.locator('section.step:not([hidden])').count();
    expect(visible).toBe(FIXTURE_STEPS.length);
    expect(await page.locator('#scrubber').isHidden()).toBe(true);
    await context.close();
  });
});
