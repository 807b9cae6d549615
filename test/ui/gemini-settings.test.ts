/**
 * The Google Gemini preset in Settings, against the real core (`mnemo serve`) and the scripted
 * Gemini server, in Debian's Chromium: choosing it fills the API root and the `gemini` family and
 * names the key's variables; Test connection goes through Google's SDK with the key from
 * GEMINI_API_KEY; Save writes the family to config.json.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { startGeminiServer, type GeminiServer } from '../fixtures/gemini-server';
import { closeUiTest, dataDirWith, openApp, serveApp, startUiDisplay, type ServedApp, type UiDisplay } from '../fixtures/ui/app-harness';

const MODEL = 'gemini-2.5-computer-use-preview-10-2025';
const KEY = 'AIza-settings-ui-key';
let display: UiDisplay;
let gemini: GeminiServer;
let app: ServedApp;
let browser: Browser;
const pages: Page[] = [];
let dataDir: string;

beforeAll(async () => {
  display = await startUiDisplay();
  gemini = await startGeminiServer({ replies: () => ({ text: 'OK' }), apiKey: KEY, models: [MODEL] });
  dataDir = dataDirWith({}, tmpdir());
  // `mnemo serve` inherits this process's environment: the key as a user would export it.
  const saved = { GEMINI_API_KEY: process.env.GEMINI_API_KEY, GOOGLE_API_KEY: process.env.GOOGLE_API_KEY };
  process.env.GEMINI_API_KEY = KEY;
  delete process.env.GOOGLE_API_KEY;
  try {
    app = await serveApp(dataDir, display.display);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

afterAll(async () => {
  await closeUiTest({ pages, browser, app, servers: [gemini], display });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Settings: the Google Gemini preset', () => {
  it('fills the API root and the family, names the key variables, connects through the SDK and saves', async () => {
    const { page, problems } = await openApp(browser, app);
    pages.push(page);
    await expect.poll(() => page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');

    await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'Google Gemini' });
    await expect.poll(() => page.getByRole('textbox', { name: 'Base URL' }).inputValue()).toBe('https://generativelanguage.googleapis.com');
    expect(await page.getByRole('combobox', { name: 'Family' }).inputValue()).toBe('gemini');
    await expect.poll(() => page.getByText(/GOOGLE_API_KEY \/ GEMINI_API_KEY/).count()).toBe(1);

    // The scripted server stands in for Google's; the key comes from GEMINI_API_KEY.
    await page.getByRole('textbox', { name: 'Base URL' }).fill(gemini.url);
    await page.getByRole('textbox', { name: 'Model' }).fill(MODEL);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('.check-outcome').innerText(), { timeout: 60_000 }).toMatch(/^Connected in \d+ ms; images accepted/);
    expect(gemini.requests.at(-1)).toMatchObject({ model: MODEL, operation: 'generateContent', headers: { 'x-goog-api-key': KEY } });

    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.save-row [role="status"]').innerText()).toContain('config.json');
    expect(app.configFile()).toMatchObject({ model: { baseUrl: gemini.url, model: MODEL, family: 'gemini' } });
    expect(JSON.stringify(app.configFile())).not.toContain(KEY);
    expect(problems).toEqual([]);
  });
});
