/**
 * Settings against the real core (`mnemo serve`) in Debian's Chromium, controls found by role and
 * name: the Anthropic preset (the API root, the family, the key's variable, Test connection through
 * the SDK against the scripted Anthropic server, Save), and Check grounding beside Test connection
 * (a known model name fills its family and coordinates; set up wrong, the check names the space
 * the model answers in and its fix, and "Use" puts it in the form). The display is :241 (this
 * suite's own); the pictures go to docs/screenshots/.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { startAnthropicServer, type AnthropicServer } from '../fixtures/anthropic-server';
import { groundingModel } from '../fixtures/grounding-model';
import { startScriptedServer, type ScriptedServer } from '../fixtures/openai-server';
import { closeUiTest, dataDirWith, openApp, serveApp, startUiDisplay, type ServedApp, type UiDisplay } from '../fixtures/ui/app-harness';

const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
const KEY = 'sk-ant-settings-ui-key';
const pages: Page[] = [];
const parts: { display?: UiDisplay; anthropic?: AnthropicServer; grounder?: ScriptedServer; app?: ServedApp; browser?: Browser; dataDir?: string } = {};

beforeAll(async () => {
  parts.display = await startUiDisplay(':241');
  parts.anthropic = await startAnthropicServer({ replies: () => ({ content: [{ type: 'text', text: 'OK' }] }) });
  // A model that finds the button on each screenshot and answers on the 0-1000 grid.
  parts.grounder = await startScriptedServer({ replies: groundingModel({ space: 'relative-1000', format: 'tools' }) });
  parts.dataDir = dataDirWith({}, tmpdir());
  // The key as a user would export it before starting Mnemo.
  parts.app = await serveApp(parts.dataDir, parts.display.display, { env: { ANTHROPIC_API_KEY: KEY } });
  parts.browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

afterAll(async () => {
  await closeUiTest({ pages, browser: parts.browser, app: parts.app, servers: [parts.anthropic, parts.grounder], display: parts.display });
  if (parts.dataDir) rmSync(parts.dataDir, { recursive: true, force: true });
});

/** The parts, once set up. */
function setUp() {
  const { anthropic, grounder, app, browser } = parts;
  if (!anthropic || !grounder || !app || !browser) throw new Error('the suite is not set up');
  return { anthropic, grounder, app, browser };
}

async function openSettings(): Promise<{ page: Page; problems: string[] }> {
  const { browser, app } = setUp();
  const opened = await openApp(browser, app);
  pages.push(opened.page);
  // The first opening has no provider yet and lands on Settings; later ones go there.
  if ((await opened.page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')) !== 'page') await opened.page.getByRole('link', { name: 'Settings' }).click();
  await expect.poll(() => opened.page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
  return opened;
}

describe('Settings', () => {
  it('the Anthropic preset fills the API root and the family, names the key variable, connects through the SDK and saves', async () => {
    const { anthropic, app } = setUp();
    const { page, problems } = await openSettings();
    await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'Anthropic (Claude)' });
    await expect.poll(() => page.getByRole('textbox', { name: 'Base URL' }).inputValue()).toBe('https://api.anthropic.com');
    expect(await page.getByRole('combobox', { name: 'Family' }).inputValue()).toBe('anthropic');
    await expect.poll(() => page.getByText(/ANTHROPIC_API_KEY/).count()).toBe(1);
    // Claude's coordinates are fixed by its tool: no choice of space.
    expect(await page.getByRole('combobox', { name: 'Coordinates' }).count()).toBe(0);

    // The scripted server stands in for Anthropic's; the key comes from ANTHROPIC_API_KEY.
    await page.getByRole('textbox', { name: 'Base URL' }).fill(anthropic.url);
    await page.getByRole('textbox', { name: 'Model' }).fill('claude-sonnet-4-6');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('.check-outcome').innerText(), { timeout: 60_000 }).toMatch(/^Connected in \d+ ms; images accepted/);
    const request = anthropic.requests.at(-1);
    // The SDK sends the key from ANTHROPIC_API_KEY (as `x-api-key` or a bearer token, by version).
    expect(request?.headers['x-api-key'] ?? request?.headers.authorization).toMatch(new RegExp(`^(Bearer )?${KEY}$`));
    expect(request?.body).toMatchObject({ model: 'claude-sonnet-4-6' });
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-anthropic.png') });

    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.save-row [role="status"]').innerText()).toContain('config.json');
    expect(app.configFile()).toMatchObject({ model: { baseUrl: anthropic.url, model: 'claude-sonnet-4-6', family: 'anthropic' } });
    expect(JSON.stringify(app.configFile())).not.toContain(KEY);
    expect(problems).toEqual([]);
  });

  it('the computer tool beside the family: auto says the model\'s own, a refused one names the fix, a choice is saved', { timeout: 180_000 }, async () => {
    const { anthropic, app } = setUp();
    const { page, problems } = await openSettings();
    await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'Anthropic (Claude)' });
    await page.getByRole('textbox', { name: 'Base URL' }).fill(anthropic.url);
    await page.getByRole('textbox', { name: 'Model' }).fill('claude-sonnet-5-5');
    const tool = page.getByRole('combobox', { name: 'Computer tool' });
    expect(await tool.inputValue()).toBe('');
    await expect.poll(() => tool.locator('option:checked').innerText()).toBe('auto: computer_toolset_20260801 for this model');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('.check-outcome').innerText(), { timeout: 60_000 }).toMatch(/^Connected in \d+ ms; images accepted/);
    expect(anthropic.requests.at(-1)?.body.tools).toEqual([{ type: 'computer_toolset_20260801' }]);

    // The older tool, which Claude 5 refuses on the Claude API: the refusal names the fix.
    await tool.selectOption('computer_20251124');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('.check-outcome').innerText(), { timeout: 60_000 }).toMatch(/--computer-tool computer_toolset_20260801/);
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-computer-tool.png') });

    // OpenAI's GA tool for GPT-5.5; the preview tool chosen and saved.
    await page.getByRole('combobox', { name: 'Family' }).selectOption('openai-cua');
    await page.getByRole('textbox', { name: 'Model' }).fill('gpt-5.5');
    await expect.poll(() => tool.locator('option:checked').innerText()).toBe('auto: computer for this model');
    await tool.selectOption('computer_use_preview');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.save-row [role="status"]').innerText()).toContain('config.json');
    expect(app.configFile()).toMatchObject({ model: { family: 'openai-cua', model: 'gpt-5.5', computerTool: 'computer_use_preview' } });
    // A family without a vendor tool has no such choice.
    await page.getByRole('combobox', { name: 'Family' }).selectOption('tools');
    expect(await page.getByRole('combobox', { name: 'Computer tool' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('Check grounding names the space the model answers in, and its fix fills the form', { timeout: 180_000 }, async () => {
    const { grounder, app } = setUp();
    const { page, problems } = await openSettings();
    await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'vLLM' });
    await page.getByRole('textbox', { name: 'Base URL' }).fill(grounder.url);
    // A model Mnemo knows: its family and its coordinates come with its name.
    await page.getByRole('textbox', { name: 'Model' }).fill('Qwen/Qwen3-VL-8B-Instruct');
    expect(await page.getByRole('combobox', { name: 'Family' }).inputValue()).toBe('tools');
    expect(await page.getByRole('combobox', { name: 'Coordinates' }).inputValue()).toBe('relative-1000');
    await expect.poll(() => page.getByText(/Known model: Qwen3-VL, family tools, coordinates relative-1000/).count()).toBe(1);

    // Set up wrong: pixels of the image.
    await page.getByRole('combobox', { name: 'Coordinates' }).selectOption('image');
    const before = grounder.requests.length;
    await page.getByRole('button', { name: 'Check grounding' }).click();
    const verdict = page.locator('.grounding-outcome');
    await expect.poll(() => verdict.innerText(), { timeout: 120_000 }).toMatch(/The model answers in relative-1000 coordinates \(5\/5 hit\), not in image as configured/);
    expect(await verdict.innerText()).toMatch(/Fix: --coordinates relative-1000, or in config\.json: "model": \{ "coordinates": "relative-1000" \}/);
    expect(grounder.requests.length - before).toBe(5);
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-grounding.png') });

    await page.getByRole('button', { name: 'Use relative-1000' }).click();
    expect(await page.getByRole('combobox', { name: 'Coordinates' }).inputValue()).toBe('relative-1000');
    await page.getByRole('button', { name: 'Check grounding' }).click();
    await expect.poll(() => verdict.innerText(), { timeout: 120_000 }).toMatch(/The model answers in relative-1000 coordinates, as configured: 5\/5 targets hit/);

    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.save-row [role="status"]').innerText()).toContain('config.json');
    expect(app.configFile()).toMatchObject({ model: { baseUrl: grounder.url, model: 'Qwen/Qwen3-VL-8B-Instruct', family: 'tools', coordinates: 'relative-1000' } });
    expect(problems).toEqual([]);
  });
});
