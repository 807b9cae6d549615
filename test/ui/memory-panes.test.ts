/**
 * The window's newer panes against the real core: `mnemo serve` on a private Xvfb (:174), a fresh
 * data directory without a provider, scripted model servers, Debian's Chromium through
 * playwright-core. In order, as a newcomer meets them:
 *
 * - at start a failing check of `mnemo doctor` (no provider yet) is named in a notice with its
 *   fix; Settings lists every check and runs them again;
 * - History shows the sample session Mnemo ships, badged; it opens in the inspector; removing it
 *   removes its folder and it is not offered again;
 * - a run teaches a fact (save_fact), a person saves others (the CLI, the API): the Facts region
 *   browses, searches, edits (the old value kept in the history) and forgets them, and a fact's
 *   session opens that run; the Working memory region shows the conversation's summary.
 *
 * Each pane is saved to docs/screenshots/.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FactJson } from '../../src/shared/app-api';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { runMnemo } from '../fixtures/mnemo-cli';
import { startScriptedServer, type RecordedRequest, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { closeUiTest, dataDirWith, openApp, serveApp, startUiDisplay, type ServedApp, type UiDisplay } from '../fixtures/ui/app-harness';

/** This file's display: apart from app.test.ts's :181. */
const DISPLAY = ':174';
const ROOT = resolve(import.meta.dirname, '../..');
const SCREENSHOTS = join(ROOT, 'docs/screenshots');
const SAMPLE = JSON.parse(readFileSync(join(ROOT, 'samples/first-session/session.json'), 'utf8')) as { id: string; task: string };
const WORKING_MEMORY = 'The user keeps notes in ~/notes and likes short answers.';
const scratch = join(tmpdir(), `mnemo-ui-panes-${process.pid}`);

let display: UiDisplay;
let model: ScriptedServer;
let memoryModel: ScriptedServer;
let app: ServedApp;
let browser: Browser;
const pages: Page[] = [];
const script: ScriptedReply[] = [];

function reply(thought: string, actions: unknown[]): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] } as ScriptedReply;
}

function systemOf(request: RecordedRequest): string {
  return (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages?.find((message) => message.role === 'system')?.content as string;
}

async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${app.origin}/api${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${app.token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function open(path = ''): Promise<{ page: Page; problems: string[] }> {
  const opened = await openApp(browser, app, path);
  pages.push(opened.page);
  return opened;
}

/** Answers the dialog window.confirm opens (remove, forget) with OK. */
function acceptNextDialog(page: Page): void {
  page.once('dialog', (dialog) => void dialog.accept());
}

beforeAll(async () => {
  mkdirSync(scratch, { recursive: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  display = await startUiDisplay(DISPLAY);
  model = await startScriptedServer({
    replies: (request) => (/This is a connection test/.test(request.rawBody) ? { text: 'OK', usage: { prompt_tokens: 90, completion_tokens: 1 } } : script.shift()),
  });
  memoryModel = await startScriptedServer({
    replies: (request) => {
      const system = systemOf(request) ?? '';
      if (system.startsWith('You pick out lasting facts')) return { text: '[]' };
      if (system.startsWith('You keep the working memory')) return { text: WORKING_MEMORY };
      return { text: JSON.stringify({ summary: 'The agent saved where the notes are.' }) };
    },
  });
  // No provider: the provider check fails, which the window must say at start.
  app = await serveApp(dataDirWith({ memory: { model: { baseUrl: memoryModel.url } }, agent: { maxSteps: 10 } }, scratch), DISPLAY);
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

afterAll(async () => {
  await closeUiTest({ pages, browser, app, servers: [model, memoryModel], display });
  rmSync(scratch, { recursive: true, force: true });
});

/** Each test waits on the core (the checks, a run, the memory model): generous on a busy machine. */
const SLOW = { timeout: 300_000 };

describe('the newer panes against mnemo serve', () => {
  it('at start a failing check is named with its fix, and can be dismissed; Settings lists every check and runs them again', SLOW, async () => {
    const { page, problems } = await open();
    const notice = page.getByRole('alert', { name: 'Setup problems' });
    await expect.poll(() => notice.count(), { timeout: 120_000 }).toBe(1);
    const said = await notice.innerText();
    expect(said).toMatch(/provider/);
    expect(said).toMatch(/Fix: .*config\.json/);
    // Only what fails is in the notice: the display answers on :174.
    expect(said).not.toMatch(/DISPLAY=/);
    await page.screenshot({ path: join(SCREENSHOTS, 'startup-notice.png') });
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => notice.count()).toBe(0);

    await page.getByRole('link', { name: 'Settings' }).click();
    const checks = page.getByRole('region', { name: 'System checks' });
    const items = checks.getByRole('listitem');
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(5);
    const names = await items.locator('.check-name').allInnerTexts();
    expect(names).toEqual(expect.arrayContaining(['display', 'capture', 'input', 'data directory', 'provider']));
    const displayCheck = items.filter({ has: page.locator('.check-name', { hasText: /^display$/ }) });
    expect(await displayCheck.getByRole('img').getAttribute('aria-label')).toBe('passed');
    expect(await displayCheck.innerText()).toContain(`DISPLAY=${DISPLAY} answers`);
    const provider = items.filter({ has: page.locator('.check-name', { hasText: /^provider$/ }) });
    expect(await provider.getByRole('img').getAttribute('aria-label')).toBe('failed');
    expect(await provider.innerText()).toMatch(/Fix: /);

    // Again, on demand: the button is busy while the core checks, then the list is back.
    await checks.getByRole('button', { name: 'Run the checks again' }).click();
    await expect.poll(() => checks.getAttribute('aria-busy'), { timeout: 120_000 }).toBe('false');
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(5);
    await checks.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-checks.png') });
    expect(problems).toEqual([]);
  });

  it('History shows the sample session with its badge; it opens in the inspector; removing it removes it for good', SLOW, async () => {
    const { page, problems } = await open();
    // Without a provider the window opens on Settings; then History.
    await expect.poll(() => page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('link', { name: 'History' }).click();
    const sessions = page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => sessions.count(), { timeout: 60_000 }).toBe(1);
    const sample = sessions.first();
    expect(await sample.locator('.sample-badge').innerText()).toMatch(/^sample$/i);
    const openSample = sample.getByRole('button', { name: `Open Sample: ${SAMPLE.task}` });
    expect(await openSample.count()).toBe(1);
    await page.getByRole('alert', { name: 'Setup problems' }).getByRole('button', { name: 'Dismiss' }).click({ timeout: 120_000 });
    await page.screenshot({ path: join(SCREENSHOTS, 'history-sample.png') });

    await openSample.click();
    const steps = page.getByRole('list', { name: 'Steps' }).getByRole('listitem');
    await expect.poll(() => steps.count(), { timeout: 30_000 }).toBe(4);
    await steps.nth(0).getByRole('button').click();
    const inspector = page.getByRole('complementary', { name: 'Step 1' });
    await inspector.waitFor();
    await expect.poll(() => inspector.innerText()).toContain('I click into it first');

    await page.getByRole('link', { name: 'History' }).click();
    acceptNextDialog(page);
    await sessions.first().getByRole('button', { name: `Remove sample ${SAMPLE.id}` }).click();
    await expect.poll(() => sessions.count()).toBe(0);
    expect(existsSync(join(app.dataDir, 'sessions', SAMPLE.id))).toBe(false);
    // Not offered again.
    expect((await api<unknown[]>('/sessions')).body).toEqual([]);
    await page.reload();
    await expect.poll(() => page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('link', { name: 'History' }).click();
    await expect.poll(() => page.getByText('No sessions recorded yet.').count(), { timeout: 30_000 }).toBe(1);
    expect(problems).toEqual([]);
  });

  it('Facts: a run teaches one, a person saves others; browse, search, edit, forget; the session link opens the run; Working memory shows the conversation', SLOW, async () => {
    // A provider now, and a run that saves a fact.
    const settings = await api<{ config: Record<string, unknown> }>('/settings');
    expect((await api('/settings', { method: 'PUT', body: { config: { ...settings.body.config, model: { baseUrl: model.url, model: 'gpt-4.1', family: 'tools' } } } })).status).toBe(200);
    script.push(
      reply('I remember where the notes are.', [{ type: 'save_fact', keyword: 'notes-folder', description: 'Where the user keeps notes', value: '~/notes' }]),
      reply('Done.', [{ type: 'finished', summary: 'Remembered the notes folder.' }]),
    );
    const task = 'Remember where my notes are';
    const started = await api<{ id: string; conversationId?: string }>('/runs', { method: 'POST', body: { task } });
    expect(started.status).toBe(200);
    const runId = started.body.id;
    await expect.poll(async () => (await api('/runs/current')).body, { timeout: 120_000 }).toBeNull();
    // The working memory is written as the run ends.
    await expect.poll(async () => (await api<string[]>('/memory/conversations')).body, { timeout: 60_000 }).toHaveLength(1);
    const [conversation] = (await api<string[]>('/memory/conversations')).body;

    // A person's facts: one by the CLI, one by the API.
    const added = await runMnemo(['facts', 'add', '--data-dir', app.dataDir, '--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'favourite-editor', '--description', 'The editor the user prefers', '--value', 'Vim']);
    expect(added.code, added.stderr).toBe(0);
    expect((await api('/facts', { method: 'POST', body: { subject: 'machine', scope: 'cross-product', keyword: 'shell', description: 'The login shell', values: ['bash'] } })).status).toBe(200);

    const { page, problems } = await open('#/memory');
    const facts = page.getByRole('region', { name: 'Facts' });
    const items = facts.getByRole('list', { name: 'Facts found' }).locator(':scope > li');
    await expect.poll(() => items.count(), { timeout: 30_000 }).toBe(3);
    const item = (keyword: string) => items.filter({ has: page.locator('.fact-keyword', { hasText: new RegExp(`^${keyword}$`) }) });
    expect(await item('notes-folder').innerText()).toContain('~/notes');
    expect(await item('favourite-editor').innerText()).toMatch(/saved by a person/);

    // Browse by subject and scope.
    await facts.getByRole('combobox', { name: 'Subject' }).selectOption('machine');
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().innerText()).toContain('bash');
    await facts.getByRole('combobox', { name: 'Subject' }).selectOption('');
    await facts.getByRole('combobox', { name: 'Scope' }).fill('product:mnemo');
    await expect.poll(() => items.count()).toBe(2);
    await facts.getByRole('combobox', { name: 'Scope' }).fill('');
    await expect.poll(() => items.count()).toBe(3);

    // Search, ranked by the core.
    await facts.getByRole('searchbox', { name: 'Search facts' }).fill('editor');
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().innerText()).toMatch(/favourite-editor[\s\S]*score/);
    await facts.getByRole('searchbox', { name: 'Search facts' }).fill('');
    await expect.poll(() => items.count()).toBe(3);

    // Working memory of the conversation.
    const working = page.getByRole('region', { name: 'Working memory' });
    await expect.poll(() => working.getByRole('combobox', { name: 'Choose a conversation' }).inputValue(), { timeout: 30_000 }).toBe(conversation);
    await expect.poll(() => working.locator('pre').innerText()).toBe(WORKING_MEMORY);
    await page.screenshot({ path: join(SCREENSHOTS, 'memory-facts.png'), fullPage: true });

    // Edit: the new value is current, the old one is history.
    await item('favourite-editor').getByRole('button', { name: 'Edit favourite-editor' }).click();
    await item('favourite-editor').getByRole('textbox', { name: 'Values' }).fill('Helix');
    await item('favourite-editor').getByRole('button', { name: 'Save fact' }).click();
    await expect.poll(() => item('favourite-editor').locator('.fact-values').innerText()).toBe('Helix');
    expect(await item('favourite-editor').innerText()).toMatch(/Earlier values \(1\)/);
    const stored = (await api<FactJson[]>('/facts?subject=user')).body.find((fact) => fact.keyword === 'favourite-editor');
    expect(stored).toMatchObject({ values: ['Helix'], history: [{ values: ['Vim'] }] });

    // Forget: gone from the region and from the store.
    acceptNextDialog(page);
    await item('favourite-editor').getByRole('button', { name: 'Forget favourite-editor' }).click();
    await expect.poll(() => items.count()).toBe(2);
    expect((await api<FactJson[]>('/facts')).body.map((fact) => fact.keyword).sort()).toEqual(['notes-folder', 'shell']);
    const listed = await runMnemo(['facts', 'list', '--json', '--data-dir', app.dataDir]);
    expect((JSON.parse(listed.stdout) as FactJson[]).some((fact) => fact.keyword === 'favourite-editor')).toBe(false);

    // The fact the run taught opens that run.
    await item('notes-folder').getByRole('button', { name: `Open session ${runId}` }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Run' }).getAttribute('aria-current')).toBe('page');
    await expect.poll(() => page.locator('.run-task').innerText(), { timeout: 30_000 }).toBe(task);
    await expect.poll(() => page.getByRole('list', { name: 'Steps' }).getByRole('listitem').count(), { timeout: 30_000 }).toBe(2);
    expect(problems).toEqual([]);
  });
});
