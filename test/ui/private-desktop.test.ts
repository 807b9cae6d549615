/**
 * The Run view with a private desktop, against the real core: the Run form's `Private desktop`
 * switch and its apps start Chromium on an X display of the run's own; the `Live desktop` image
 * shows that display live in the window (its pixels follow the screen); `Take over`, a click on
 * the image that lands on the button of the page in that Chromium, the user's step in the
 * timeline, and `Hand back` with a note the agent's next request carries. A second run at once on
 * a private desktop of its own: both listed under `Live runs`, the view switching between them.
 * Each view is saved to docs/screenshots/ (the README shows them). Displays from :172 (the user's
 * stand-in) and the private ones from $MNEMO_TEST_PRIVATE_DISPLAY.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { kioskCommand } from '../fixtures/desktop/chromium';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { TEST_DESKTOP_SETTINGS } from '../fixtures/desktop/private-desktops';
import { startUserDisplay, type UserDisplay } from '../fixtures/desktop/user-display';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { userText } from '../fixtures/openai-server/request-text';
import { closeUiTest, dataDirWith, openApp, serveApp, type ServedApp } from '../fixtures/ui/app-harness';

const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-ui-private-'));
const SLOW = { timeout: 300_000 };
const FIRST_TASK = 'Press the button on the form';
const SECOND_TASK = 'Wait on a desktop of its own';

let user: UserDisplay;
let page: EventServer;
let model: ScriptedServer;
let memoryModel: ScriptedServer;
let app: ServedApp;
let browser: Browser;
const pages: Page[] = [];
const replies: Array<() => Promise<ScriptedReply>> = [];

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

/** The image's pixels as the window shows them, scaled down (same origin: a canvas may read them). */
function imagePixels(target: Page): Promise<string> {
  return target.evaluate(`(() => {
    const image = document.querySelector('img[alt="Live desktop"]');
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 40;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0, 64, 40);
    return Array.from(context.getImageData(0, 0, 64, 40).data).join(',');
  })()`);
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  process.env.MNEMO_TEST_USER_DISPLAY ??= '172';
  user = await startUserDisplay();
  page = await startEventServer();
  // The run's requests carry the computer tool; the window's setup check (the doctor) asks the same model a plain question.
  // The second run only waits for the user (it is stopped at the end).
  model = await startScriptedServer({
    replies: (request) => {
      if (!request.body?.tools) return { text: 'ok' };
      if (userText(request).includes(SECOND_TASK)) return { ...toolCall([{ type: 'wait', ms: 100 }], 'Waiting.'), delayMs: 600_000 };
      return (replies.shift() ?? (async () => toolCall([{ type: 'finished' }], 'Done.')))();
    },
  });
  memoryModel = await startMemoryModelServer();
  const dataDir = dataDirWith({ model: { baseUrl: model.url, model: 'gpt-4.1', family: 'tools' }, image: { maxWidth: 960 }, memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }, scratch);
  app = await serveApp(dataDir, user.display);
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
}, 300_000);

afterAll(async () => {
  await closeUiTest({ pages, browser, app, servers: [model, memoryModel, page], display: user });
  rmSync(scratch, { recursive: true, force: true });
});

describe('a private desktop in the Run view', () => {
  it('starts Chromium with the Run form, shows it live, and is taken over and handed back in the window', SLOW, async () => {
    let handedBack = false;
    replies.push(
      // The model thinks until the user takes over: the takeover cancels the call.
      async () => ({ ...toolCall([{ type: 'wait', ms: 100 }], 'Looking at the form.'), delayMs: 600_000 }),
      async () => {
        expect(handedBack).toBe(true);
        return toolCall([{ type: 'finished', summary: 'The user pressed the button.' }], 'The user did it.');
      },
    );
    const opened = await openApp(browser, app);
    pages.push(opened.page);
    const window = opened.page;
    await window.getByRole('link', { name: 'Run' }).click();

    // The Run form: a private desktop, with Chromium on the form page as its app.
    await window.getByRole('textbox', { name: 'Task' }).fill(FIRST_TASK);
    await window.getByRole('switch', { name: 'Private desktop' }).check();
    await window.getByRole('textbox', { name: 'Desktop size' }).fill('1280x800');
    await window.getByRole('textbox', { name: 'Apps to start' }).fill(kioskCommand(page, 'in-the-view', mkdtempSync(join(scratch, 'profile-'))));
    await window.locator('.task-form').screenshot({ path: join(SCREENSHOTS, 'private-desktop-form.png') });
    await window.getByRole('button', { name: 'Start' }).click();
    await page.waitForType('ready', (event) => event.run === 'in-the-view', { timeoutMs: 120_000 });

    // The live view: the display at its own size, its pixels following the screen.
    const live = window.getByRole('img', { name: 'Live desktop' });
    await expect.poll(() => live.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth), { timeout: 60_000 }).toBe(1280);
    const before = await imagePixels(window);
    await page.markers(true);
    await expect.poll(() => imagePixels(window), { timeout: 30_000 }).not.toBe(before);
    await page.markers(false);
    await window.screenshot({ path: join(SCREENSHOTS, 'private-desktop-live.png') });

    // A second run at once, on a private desktop of its own: both are listed, and the view switches between them.
    await window.getByRole('textbox', { name: 'Task' }).fill(SECOND_TASK);
    await window.getByRole('textbox', { name: 'Apps to start' }).fill('');
    await window.getByRole('button', { name: 'Start' }).click();
    const liveRuns = window.getByRole('navigation', { name: 'Live runs' });
    await expect.poll(() => liveRuns.getByRole('button').allInnerTexts(), { timeout: 60_000 }).toEqual([
      expect.stringMatching(new RegExp(`${FIRST_TASK}\\s*private desktop :\\d+`)),
      expect.stringMatching(new RegExp(`${SECOND_TASK}\\s*private desktop :\\d+`)),
    ]);
    const header = window.locator('.run-header .run-task');
    await expect.poll(() => header.innerText(), { timeout: 30_000 }).toBe(SECOND_TASK);
    await expect.poll(() => live.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth), { timeout: 60_000 }).toBe(1280);
    await window.screenshot({ path: join(SCREENSHOTS, 'private-desktop-live-runs.png') });
    await liveRuns.getByRole('button', { name: new RegExp(FIRST_TASK) }).click();
    await expect.poll(() => header.innerText(), { timeout: 30_000 }).toBe(FIRST_TASK);
    await expect.poll(() => liveRuns.locator('[aria-current="true"]').innerText()).toContain(FIRST_TASK);

    await window.getByRole('button', { name: 'Take over' }).click();
    await expect.poll(() => window.locator('.run-header .status-badge').innerText(), { timeout: 60_000 }).toBe('taken over');

    // A click on the image where the page's button is: it lands on the button in the private Chromium.
    const button = centreOf(TARGET_LAYOUT['btn-center']);
    const box = await live.boundingBox();
    if (!box) throw new Error('the live view has no box');
    await window.mouse.click(box.x + (button.x / 1280) * box.width, box.y + (button.y / 800) * box.height);
    await page.waitForType('click', (event) => event.run === 'in-the-view' && event.target === 'btn-center', { timeoutMs: 60_000 });

    // The timeline has the user's step.
    const steps = window.getByRole('list', { name: 'Steps' }).getByRole('listitem');
    await expect.poll(() => steps.filter({ hasText: 'you' }).count(), { timeout: 60_000 }).toBe(1);
    // The row comes with the step's start; its actions follow once the step is recorded.
    await expect.poll(() => steps.filter({ hasText: 'you' }).innerText(), { timeout: 60_000 }).toMatch(/click at \(\d+, \d+\)/);
    await window.screenshot({ path: join(SCREENSHOTS, 'private-desktop-takeover.png') });

    await window.getByRole('textbox', { name: 'Note for the agent' }).fill('I pressed the button for you');
    handedBack = true;
    await window.getByRole('button', { name: 'Hand back' }).click();
    await expect.poll(() => window.locator('.run-header .status-badge').innerText(), { timeout: 120_000 }).toBe('finished');
    const told = userText(model.requests.filter((request) => request.body?.tools).at(-1) as (typeof model.requests)[number]);
    expect(told).toContain('The user took over the desktop and did, in pixels of the current screenshot (960x600), origin at its top-left corner: 1. click at');
    expect(told).toContain('Their note: "I pressed the button for you".');

    // The second run is still there, on its own desktop: shown again and stopped.
    // The list changes as the first run ends (it leaves the live runs): a click that met it mid-change is made again.
    const secondButton = liveRuns.getByRole('button', { name: new RegExp(SECOND_TASK) });
    await expect
      .poll(
        async () => {
          const shown = await header.innerText();
          if (shown !== SECOND_TASK) await secondButton.click();
          return shown;
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(SECOND_TASK);
    await window.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => window.locator('.run-header .status-badge').innerText(), { timeout: 60_000 }).toBe('stopped');

    // Settings keep the Run form's defaults for private desktops.
    await window.getByRole('link', { name: 'Settings' }).click();
    const defaults = window.getByRole('group', { name: 'Private desktops' });
    await expect(defaults.getByRole('switch', { name: 'Private desktop' }).isVisible()).resolves.toBe(true);
    await defaults.screenshot({ path: join(SCREENSHOTS, 'settings-private-desktops.png') });
    expect(opened.problems).toEqual([]);
  });
});
