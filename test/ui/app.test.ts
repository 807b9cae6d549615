/**
 * The window against the real core: `mnemo serve` on a private Xvfb (:181, openbox, an xterm),
 * the scripted OpenAI-compatible server as the model, and Debian's Chromium driven by
 * playwright-core. Controls are found by role and accessible name, as a user (or a screen reader)
 * finds them. Each main view is saved to docs/screenshots/ for the README.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { closeUiTest, dataDirWith, openApp, serveApp, startUiDisplay, type ServedApp, type UiDisplay } from '../fixtures/ui/app-harness';

const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
const scratch = join(tmpdir(), `mnemo-ui-app-${process.pid}`);

/** A model reply: the thought streamed as text, the actions as the `computer` tool call. */
function reply(thought: string, actions: unknown[], extra: Partial<ScriptedReply> = {}): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }], chunkSize: 6, ...extra } as ScriptedReply;
}

let display: UiDisplay;
let model: ScriptedServer;
/** The replies for the runs, in order; "Test connection" is answered apart. */
const script: ScriptedReply[] = [];
let memoryModel: ScriptedServer;
let app: ServedApp;
let browser: Browser;
const pages: Page[] = [];

async function open(path = ''): Promise<{ page: Page; problems: string[] }> {
  const opened = await openApp(browser, app, path);
  pages.push(opened.page);
  return opened;
}

const steps = (page: Page): Locator => page.getByRole('list', { name: 'Steps' }).getByRole('listitem');
const status = (page: Page): Locator => page.locator('.run-header .status-badge');

async function startTask(page: Page, task: string): Promise<void> {
  await page.getByRole('link', { name: 'Run' }).click();
  await page.getByRole('textbox', { name: 'Task' }).fill(task);
  await page.getByRole('button', { name: 'Start' }).click();
}

async function waitForEnd(page: Page): Promise<string> {
  await expect.poll(() => status(page).innerText(), { timeout: 60_000 }).not.toMatch(/^(running|paused)$/);
  return status(page).innerText();
}

async function saveScreenshot(page: Page, view: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${view}.png`) });
}

beforeAll(async () => {
  mkdirSync(scratch, { recursive: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  display = await startUiDisplay();
  model = await startScriptedServer({
    replies: (request) => (/This is a connection test/.test(request.rawBody) ? { text: 'OK', usage: { prompt_tokens: 90, completion_tokens: 1 } } : script.shift()),
  });
  memoryModel = await startMemoryModelServer('The agent moved to the notes window, typed a note and ran it.');
  // No provider yet: the app must open on Settings. Small memory budgets, so the layers move.
  const dataDir = dataDirWith(
    {
      image: { maxWidth: 960 },
      memory: { model: { baseUrl: memoryModel.url }, recentBudget: 240, summaryBudget: 600 },
      agent: { maxSteps: 20, confirmationRules: [{ keys: ['enter'], reason: 'Enter runs the command' }] },
    },
    scratch,
  );
  app = await serveApp(dataDir, display.display);
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

/** A test that failed half-way must not leave its run going on for the next one. */
afterEach(async () => {
  const api = (path: string, method = 'GET') => fetch(`${app.origin}/api${path}`, { method, headers: { authorization: `Bearer ${app.token}` } });
  const current = (await (await api('/runs/current')).json()) as { id: string } | null;
  if (!current) return;
  await api(`/runs/${current.id}/stop`, 'POST');
  await expect.poll(async () => (await api('/runs/current')).json(), { timeout: 30_000 }).toBeNull();
  script.length = 0;
});

afterAll(async () => {
  await closeUiTest({ pages, browser, app, servers: [model, memoryModel], display });
  rmSync(scratch, { recursive: true, force: true });
});

describe('the window against mnemo serve', () => {
  // The settings answer late, as on a loaded machine: held until the user has clicked the Memory tab,
  // from the Run view or on Memory itself, where the page opened (not History: its first listing
  // would offer the sample session, which the History test does not expect).
  for (const [how, path] of [['from the Run view', ''], ['on the view the page opened on', '#/memory']] as const) {
    it(`without a provider, a user who clicked a view's tab (${how}) before the settings came back is left there, not moved to Settings`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      let release: () => void = () => undefined;
      try {
        const userMoved = new Promise<void>((resolve) => (release = resolve));
        await page.route(/\/api\/settings$/, async (route) => {
          if (route.request().method() === 'GET') await userMoved;
          await route.continue();
        });
        const settingsAnswered = page.waitForResponse((response) => /\/api\/settings$/.test(response.url()) && response.request().method() === 'GET');
        await page.goto(`${app.url}${path}`);
        await page.getByRole('link', { name: 'Memory' }).click();
        await expect.poll(() => page.getByRole('link', { name: 'Memory' }).getAttribute('aria-current')).toBe('page');
        release();
        await settingsAnswered;
        // Two frames after the answer: the settings store has had it and any move would have been made.
        await page.evaluate(() => {
          const frame = (callback: () => void) => (globalThis as unknown as { requestAnimationFrame(callback: () => void): number }).requestAnimationFrame(callback);
          return new Promise<void>((resolve) => frame(() => frame(resolve)));
        });
        expect(await page.getByRole('link', { name: 'Memory' }).getAttribute('aria-current')).toBe('page');
        expect(await page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).toBeNull();
        expect(page.url()).toMatch(/#\/memory$/);
      } finally {
        release();
        await context.close();
      }
    });
  }

  it('opens on Settings without a provider; a base URL without /v1 shows the hint; Save writes config.json', async () => {
    const { page, problems } = await open();
    await expect.poll(() => page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
    await expect.poll(() => page.getByRole('status').first().innerText()).toMatch(/No model provider is set up yet/);

    await page.getByRole('textbox', { name: 'Base URL' }).fill(model.origin);
    await page.getByRole('textbox', { name: 'Model' }).fill('gpt-4.1');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('.check-outcome').innerText(), { timeout: 30_000 }).toContain(`did you mean ${model.origin}/v1?`);

    await page.getByRole('textbox', { name: 'Base URL' }).fill(model.url);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('.check-outcome').innerText(), { timeout: 30_000 }).toMatch(/^Connected in \d+ ms; images (accepted|not accepted)/);

    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.save-row [role="status"]').innerText()).toContain('config.json');
    const saved = app.configFile() as { model?: Record<string, unknown>; memory?: { model?: { baseUrl?: string } }; agent?: { confirmationRules?: unknown[] } };
    expect(saved.model).toMatchObject({ baseUrl: model.url, model: 'gpt-4.1', family: 'tools' });
    // What the form does not show is kept.
    expect(saved.memory?.model?.baseUrl).toBe(memoryModel.url);
    expect(saved.agent?.confirmationRules).toEqual([{ keys: ['enter'], reason: 'Enter runs the command' }]);
    // The notice goes once a provider is there.
    await expect.poll(() => page.getByText(/No model provider is set up yet/).count()).toBe(0);
    // The system checks ran at start (the picture shows them, not "Checking…").
    await expect.poll(() => page.getByRole('region', { name: 'System checks' }).getByRole('listitem').count(), { timeout: 120_000 }).toBeGreaterThan(0);
    await saveScreenshot(page, 'settings');
    expect(problems).toEqual([]);
  });

  it('runs a task: steps arrive with thought, actions, duration and cost; pause and resume', async () => {
    script.push(
      reply('I move the mouse over the notes window.', [{ type: 'mouse_move', x: 420, y: 260 }], { chunkDelayMs: 20 }),
      // A slow model call, so Pause lands while the run is busy.
      reply('I click into the notes window to focus it.', [{ type: 'click', x: 480, y: 300 }], { delayMs: 1500 }),
      reply('I type the note.', [{ type: 'type', text: 'echo hello from mnemo' }]),
      reply('The note is written.', [{ type: 'finished', summary: 'Wrote the note.' }]),
    );
    const { page, problems } = await open();
    await startTask(page, 'Write a note in the notes window');

    await expect.poll(() => steps(page).count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    await expect.poll(() => steps(page).first().innerText(), { timeout: 30_000 }).toContain('move to (420, 260)');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await expect.poll(() => status(page).innerText(), { timeout: 30_000 }).toBe('paused');
    const whilePaused = await steps(page).count();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();

    expect(await waitForEnd(page)).toBe('finished');
    expect(whilePaused).toBeLessThan(4);
    await expect.poll(() => steps(page).count()).toBe(4);
    const first = await steps(page).nth(0).innerText();
    expect(first).toContain('I move the mouse over the notes window.');
    expect(first).toMatch(/\d+(\.\d+)? (ms|s)/);
    expect(first).toMatch(/\$0\.\d{4}/);
    expect(await steps(page).nth(2).innerText()).toContain('type "echo hello from mnemo"');
    expect(await page.getByTestId('step-count').innerText()).toBe('4 / 20');

    const screen = page.getByRole('img', { name: 'Current screen' });
    await expect.poll(() => screen.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBe(960);

    // The inspector: the step as the model saw it, its thought, actions, raw reply, timings.
    await steps(page).nth(1).getByRole('button').click();
    const inspector = page.getByRole('complementary', { name: 'Step 2' });
    await inspector.waitFor();
    await expect.poll(() => inspector.innerText()).toMatch(/Left-click at \(480, 300\)/);
    await expect.poll(() => inspector.locator('.raw-reply').innerText()).toContain('I click into the notes window');
    expect(await inspector.innerText()).toMatch(/observe[\s\S]*model[\s\S]*act[\s\S]*settle/);
    await saveScreenshot(page, 'run');
    expect(problems).toEqual([]);
  });

  it('answers a question in the dialog, allows one confirmation and denies the next; memory and blackboard follow', async () => {
    script.push(
      reply('I need to know what to write.', [{ type: 'ask_user', question: 'What should I write?' }]),
      reply('I type what the user asked for.', [{ type: 'type', text: 'echo remember the milk' }]),
      reply('I press Enter to run it.', [{ type: 'hotkey', keys: ['enter'] }]),
      reply('I press Enter once more.', [{ type: 'hotkey', keys: ['enter'] }]),
    );
    const { page, problems } = await open();
    await startTask(page, 'Ask me what to write, then run it');

    const question = page.getByRole('dialog');
    await question.getByRole('textbox', { name: 'Answer' }).waitFor({ timeout: 30_000 });
    expect(await question.innerText()).toContain('What should I write?');
    await question.getByRole('textbox', { name: 'Answer' }).fill('echo remember the milk');
    await question.getByRole('button', { name: 'Send' }).click();

    // The blackboard has the question and its answer, linked to its step.
    await page.getByRole('link', { name: 'Blackboard' }).click();
    const questions = page.getByRole('region', { name: 'Questions and answers' });
    await expect.poll(() => questions.innerText(), { timeout: 30_000 }).toContain('What should I write?');
    await expect.poll(() => questions.innerText(), { timeout: 30_000 }).toContain('echo remember the milk');
    expect(await questions.getByRole('button', { name: /Step \d+/ }).count()).toBeGreaterThan(0);

    // A confirmation: Allow.
    await page.getByRole('link', { name: 'Run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Allow' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('dialog').innerText()).toMatch(/Enter runs the command/);
    await saveScreenshot(page, 'confirmation');
    await page.getByRole('dialog').getByRole('button', { name: 'Allow' }).click();

    // The next one: Deny, which ends the run refused.
    await expect.poll(() => steps(page).count(), { timeout: 30_000 }).toBe(4);
    await page.getByRole('dialog').getByRole('button', { name: 'Deny' }).waitFor({ timeout: 30_000 });
    await page.getByRole('dialog').getByRole('button', { name: 'Deny' }).click();
    expect(await waitForEnd(page)).toBe('refused');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await steps(page).nth(2).innerText()).toContain('hotkey enter');

    // The memory: the three layers with their budgets, the screenshots seen and pruned, the conversation.
    await page.getByRole('link', { name: 'Memory' }).click();
    const recent = page.getByRole('region', { name: 'Recent steps' });
    await expect.poll(() => recent.innerText()).toMatch(/of 240 characters/);
    await expect.poll(async () => (await page.getByRole('region', { name: 'Recent steps' }).locator('pre').innerText()) + (await page.getByRole('region', { name: 'Summary' }).locator('pre').innerText())).toMatch(/Step \d+ \| .{10,}/);
    expect(await page.getByRole('region', { name: 'Pending' }).count()).toBe(1);
    const strip = page.getByRole('region', { name: 'Screenshots' });
    await expect.poll(() => strip.getByRole('listitem').count()).toBe(4);
    expect(await strip.innerText()).toMatch(/seen by the model/);
    const conversation = page.getByRole('region', { name: 'Conversation' });
    expect(await conversation.innerText()).toContain('Ask me what to write, then run it');
    // What of the memory went into the last prompt: each section with its budget and what it left out.
    const prompt = page.getByRole('region', { name: 'Memory in the last prompt' });
    await expect.poll(() => prompt.getByRole('row').count()).toBe(6);
    const blackboardRow = prompt.getByRole('row', { name: /^Blackboard/ });
    expect(await blackboardRow.innerText()).toMatch(/~\d+ \/ 600/);
    expect(await prompt.getByRole('meter', { name: 'Conversation budget' }).getAttribute('max')).toBe('300');
    expect(await prompt.getByRole('row', { name: /^Layers/ }).innerText()).toMatch(/own limits/);
    await prompt.getByRole('row', { name: /^Conversation/ }).getByText('What the model was sent').click();
    await expect.poll(() => prompt.getByRole('row', { name: /^Conversation/ }).innerText()).toContain('Ask me what to write, then run it');
    await saveScreenshot(page, 'memory');
    await page.getByRole('link', { name: 'Blackboard' }).click();
    // The task's end, in words, with its status once: the reason the run ended.
    await expect.poll(() => page.getByRole('region', { name: 'Trajectories' }).innerText()).toMatch(/the task ended refused: the user refused the action/);
    await saveScreenshot(page, 'blackboard');
    expect(problems).toEqual([]);
  });

  it('a window opened mid-run shows the earlier steps; the widget shows the step; Stop cancels the model call in flight', async () => {
    script.push(
      reply('I look at the screen.', [{ type: 'mouse_move', x: 300, y: 200 }]),
      reply('I look again.', [{ type: 'mouse_move', x: 340, y: 220 }]),
      reply('And once more.', [{ type: 'mouse_move', x: 380, y: 240 }]),
      // The model takes two minutes: only Stop can end this step in time.
      reply('This reply comes far too late.', [{ type: 'finished' }], { delayMs: 120_000 }),
    );
    const first = await open();
    await startTask(first.page, 'Look around, slowly');
    await expect.poll(() => steps(first.page).count(), { timeout: 30_000 }).toBe(4);

    const late = await open();
    await expect.poll(() => steps(late.page).count(), { timeout: 30_000 }).toBe(4);
    expect(await steps(late.page).nth(0).innerText()).toContain('move to (300, 200)');
    expect(await steps(late.page).nth(2).innerText()).toContain('move to (380, 240)');
    expect(await status(late.page).innerText()).toBe('running');

    const widget = await open('#widget');
    await expect.poll(() => widget.page.locator('.widget-step').innerText(), { timeout: 30_000 }).toBe('Step 4');
    await widget.page.getByRole('button', { name: 'Pause' }).waitFor();

    await late.page.getByRole('button', { name: 'Stop' }).click();
    expect(await waitForEnd(late.page)).toBe('stopped');
    expect(await waitForEnd(first.page)).toBe('stopped');
    await expect.poll(() => widget.page.locator('.widget-step').innerText()).toBe('No run');
    for (const opened of [first, late, widget]) expect(opened.problems).toEqual([]);
  });

  it('History: search, open a session with the scrubber, replay it, export the report, delete one', async () => {
    const { page, problems } = await open('#/history');
    const search = page.getByRole('searchbox', { name: 'Search sessions' });
    const sessions = page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => sessions.count()).toBe(3);
    await search.fill('notes window');
    await expect.poll(() => sessions.count()).toBe(1);
    await saveScreenshot(page, 'history');
    await sessions.first().getByRole('button', { name: /^Open/ }).click();

    const slider = page.getByRole('slider', { name: 'Step' });
    await slider.waitFor();
    expect(await slider.getAttribute('max')).toBe('4');
    await slider.fill('2');
    await expect.poll(() => page.locator('.screen figcaption').innerText()).toBe('Step 2');
    await expect.poll(() => page.getByRole('img', { name: 'Current screen' }).getAttribute('src')).toMatch(/step-0002/);
    await page.getByRole('button', { name: 'Next step' }).click();
    await expect.poll(() => page.locator('.screen figcaption').innerText()).toBe('Step 3');

    const sessionId = /sessions\/([^/]+)\/files/.exec((await page.getByRole('img', { name: 'Current screen' }).getAttribute('src')) ?? '')?.[1];
    expect(sessionId).toBeTruthy();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export report' }).click();
    const report = await download;
    expect(report.suggestedFilename()).toBe(`mnemo-${sessionId}.html`);
    const html = readFileSync((await report.path()) as string, 'utf8');
    expect(html).toContain('Write a note in the notes window');

    await page.getByRole('button', { name: 'Replay' }).click();
    // The replay is a new session that takes the view, and runs to an end.
    await expect.poll(() => page.locator('.run-task').innerText(), { timeout: 30_000 }).toBe('Write a note in the notes window');
    await expect.poll(async () => (await page.getByRole('img', { name: 'Current screen' }).getAttribute('src')) ?? '', { timeout: 30_000 }).not.toContain(sessionId as string);
    const ended = await waitForEnd(page);
    expect(['finished', 'failed']).toContain(ended);
    expect(await steps(page).count()).toBeGreaterThan(0);

    // Delete the stopped session.
    await page.getByRole('link', { name: 'History' }).click();
    await search.fill('slowly');
    // The list still shows the last search's answer until this one comes: wait for the stopped session itself.
    await expect.poll(async () => (await sessions.count()) === 1 && (await sessions.first().innerText()).includes('Look around, slowly')).toBe(true);
    page.once('dialog', (dialog) => void dialog.accept());
    await sessions.first().getByRole('button', { name: /^Delete/ }).click();
    await expect.poll(() => sessions.count()).toBe(0);
    await search.fill('');
    await expect.poll(() => sessions.count()).toBe(3);
    expect(problems).toEqual([]);
  });

  it('refuses a request without the token (401) and one from a foreign Origin (403)', async () => {
    const bare = await fetch(`${app.origin}/api/sessions`);
    expect(bare.status).toBe(401);
    const foreign = await fetch(`${app.origin}/api/sessions`, { headers: { authorization: `Bearer ${app.token}`, origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    const allowed = await fetch(`${app.origin}/api/sessions`, { headers: { authorization: `Bearer ${app.token}` } });
    expect(allowed.status).toBe(200);
  });
});
