/**
 * The window on a shared session store: `mnemo serve --store` (the real server, a real s3rver
 * process, Debian's Chromium driven by playwright-core). The Sessions list merges the store's
 * sessions with this machine's and marks where each lives: "Stored" on one read from the store,
 * "Waiting for upload" on one kept here until the store has it (its upload at the window's start
 * failed: the store was away); only this machine's own sessions can be deleted from here. A stored session opens like a
 * local one, its screenshot fetched from the store. Found by role and accessible name.
 */
import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markPending, pendingUpload } from '../../src/main/store/pending-uploads';
import { SessionStore } from '../../src/main/store/session-store';
import { SessionUploads } from '../../src/main/store/session-uploads';
import { openSharedStore } from '../../src/main/store/shared-store/open-store';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { closeUiTest, dataDirWith, openApp, serveApp, startUiDisplay, type ServedApp, type UiDisplay } from '../fixtures/ui/app-harness';
import { S3RVER_KEY, startS3, type TestS3 } from '../fixtures/s3-server';
import { recordFixtureSession, TASK } from '../fixtures/session-fixture';

/** This session's own display (the UI tests' :181 may be another's). */
const DISPLAY = process.env.MNEMO_TEST_UI_DISPLAY ?? ':105';
const scratch = join(tmpdir(), `mnemo-ui-stored-${process.pid}`);
const WHERE = 's3://sessions/window';

let display: UiDisplay;
let s3: TestS3;
let app: ServedApp;
let browser: Browser;
const pages: Page[] = [];
let storedId: string;
let waitingId: string;

beforeAll(async () => {
  await mkdir(scratch, { recursive: true });
  s3 = await startS3(['sessions']);
  // Another machine's session, in the store only.
  const other = await recordFixtureSession(join(scratch, 'other-machine'), { missingStep: null });
  storedId = other.sessionId;
  const store = openSharedStore({ kind: 's3', bucket: 'sessions', prefix: 'window', endpoint: s3.endpoint, endpointFrom: 'AWS_ENDPOINT_URL_S3', region: 'us-east-1', pathStyle: true, credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY }, keepLocal: false });
  const uploaded = await new SessionUploads({ local: new SessionStore(other.dataDir), store, keepLocal: false, log: () => undefined }).upload(storedId);
  store.close();
  expect(uploaded.status).toBe('uploaded');

  // This machine: a session whose upload has not gone through yet.
  const dataDir = dataDirWith({}, scratch);
  const here = await recordFixtureSession(dataDir, { missingStep: null });
  waitingId = here.sessionId;
  await markPending(dataDir, { id: waitingId, store: WHERE, since: Date.now(), attempts: 1, lastError: 'the store could not be reached' });

  display = await startUiDisplay(DISPLAY);
  // The store away while the window starts: its retry of the pending upload fails (tried once per
  // process), so the session stays waiting; then the store comes back for the listing.
  await s3.stop();
  app = await serveApp(dataDir, display.display, { extra: ['--store', WHERE], env: { ...s3.env, AWS_EC2_METADATA_DISABLED: 'true' } });
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

afterAll(async () => {
  await closeUiTest({ pages, browser, app, servers: [s3], display });
  rmSync(scratch, { recursive: true, force: true });
});

const sessionsList = (page: Page): Locator => page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');

describe('the Sessions list on a shared store', () => {
  it('lists the stored session with the local one, each marked where it lives; the stored one opens with its screenshot', { timeout: 300_000 }, async () => {
    await expect.poll(async () => (await pendingUpload(app.dataDir, waitingId))?.attempts, { timeout: 120_000 }).toBe(2);
    await s3.restart();
    const opened = await openApp(browser, app, '#/history');
    const page = opened.page;
    pages.push(page);
    await page.getByRole('link', { name: 'History' }).click();
    const items = sessionsList(page);
    // The listing asks the store, just back after a restart, on a busy machine: a generous wait.
    // Missed, the failure says what the page showed instead and what the server said.
    await expect
      .poll(() => items.count(), { timeout: 90_000 })
      .toBeGreaterThanOrEqual(2)
      .catch(async (error: unknown) => {
        await page.screenshot({ path: join(tmpdir(), `mnemo-ui-stored-${process.pid}.png`) }).catch(() => undefined);
        const shown = await page.locator('body').innerText().catch((reason: unknown) => `(unread: ${String(reason)})`);
        throw new Error(`${String(error)}\nthe page showed: ${shown.slice(0, 2000)}\nmnemo serve said: ${app.served.output().stderr.slice(-3000)}`);
      });
    const stored = items.filter({ hasText: storedId });
    const waiting = items.filter({ hasText: waitingId });
    await expect.poll(() => stored.count()).toBe(1);
    await expect.poll(() => waiting.count()).toBe(1);
    expect(await stored.getByText('Stored', { exact: true }).getAttribute('title')).toBe(`Read from the shared session store ${WHERE}`);
    expect(await waiting.getByText('Waiting for upload', { exact: true }).count()).toBe(1);
    expect(await waiting.getByText('Stored', { exact: true }).count()).toBe(0);
    expect(await stored.getByText('Waiting for upload', { exact: true }).count()).toBe(0);
    // The store keeps a session for every machine: this one's window offers no Delete for it.
    expect(await stored.getByRole('button', { name: `Delete ${storedId}` }).count()).toBe(0);
    expect(await waiting.getByRole('button', { name: `Delete ${waitingId}` }).count()).toBe(1);

    await stored.getByRole('button', { name: `Open ${TASK}` }).click();
    const screen = page.getByRole('img', { name: 'Current screen' });
    await expect.poll(async () => (await screen.getAttribute('src')) ?? '').toContain(`/sessions/${storedId}/files/`);
    await expect.poll(() => screen.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    expect(opened.problems).toEqual([]);
  });
});
