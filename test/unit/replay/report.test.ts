/**
 * The HTML report as text: a real session recorded on disk, read back and rendered. How it
 * behaves in a browser is test/ui/report.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession, type SessionRecord } from '../../../src/main/store/session-reader';
import { screenshotReader } from '../../../src/main/replay/inspect';
import { escapeHtml, renderHtmlReport, REPORT_CSP } from '../../../src/main/replay/report';
import { actionSentence } from '../../../src/shared/describe-action';
import { BATCH_STEP, FIXTURE_STEPS, INJECTED_THOUGHT, recordFixtureSession, TASK, type RecordedFixture } from '../../fixtures/session-fixture';

/** The HTML of one step's section. */
function section(html: string, step: number): string {
  const start = html.indexOf(`<section class="step" id="step-${step}" data-step="${step}"`);
  expect(start, `section of step ${step}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
}

describe('renderHtmlReport', () => {
  let dataDir: string;
  let fixture: RecordedFixture;
  let session: SessionRecord;
  let html: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mnemo-report-'));
    fixture = await recordFixtureSession(dataDir, { missingStep: 5 });
    const read = await readSession(dataDir, fixture.sessionId);
    if (!read.ok) throw new Error(read.message);
    session = read.session;
    html = await renderHtmlReport(session, screenshotReader(session.directory));
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('has one section per step, in order', () => {
    const steps = [...html.matchAll(/<section class="step" id="step-(\d+)" data-step="(\d+)"/g)].map((match) => Number(match[2]));
    expect(steps).toEqual(FIXTURE_STEPS.map((s) => s.step));
    for (const fixtureStep of FIXTURE_STEPS.slice(1)) expect(section(html, fixtureStep.step)).toContain(escapeHtml(fixtureStep.thought));
  });

  it('escapes recorded text: an injected </script><script> stays text', () => {
    // Our own script is the only one.
    expect(html.match(/<script/gi)).toHaveLength(1);
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    expect(html).not.toContain('onerror="');
    expect(html).not.toContain('<img src=x');
    expect(section(html, 1)).toContain(`<p class="thought">${escapeHtml(INJECTED_THOUGHT)}</p>`);
    // Typed text, in the sentence, the JSON and the overlay label.
    expect(html).not.toContain('<b>world');
    expect(section(html, 3)).toContain('hello &lt;b&gt;world&lt;/b&gt;');
    // The task, from the user, in the title and the header.
    expect(html).toContain(`<title>${escapeHtml(`Mnemo · ${TASK}`)}</title>`);
    expect(html).toContain(`<h1 class="task">${escapeHtml(TASK)}</h1>`);
  });

  it('embeds each screenshot as a data URL of the recorded bytes, not re-encoded', () => {
    for (const [step, bytes] of fixture.screenshots) {
      if (step === fixture.missingStep) continue;
      expect(section(html, step)).toContain(`<img src="data:image/jpeg;base64,${bytes.toString('base64')}" width="640" height="400"`);
    }
  });

  it('loads nothing from anywhere: no http(s) URL, every src and href a data URL', () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/url\s*\(/i);
    expect(html).not.toMatch(/@import/i);
    const references = [...html.matchAll(/\s(?:src|href|srcset|action|poster|data|formaction|xlink:href)\s*=\s*"([^"]*)"/gi)].map((match) => match[1] as string);
    expect(references.length).toBeGreaterThanOrEqual(FIXTURE_STEPS.length - 1);
    for (const reference of references) expect(reference.startsWith('data:'), reference.slice(0, 40)).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`);
  });

  it('draws the markers as an inline SVG over each image', () => {
    const first = section(html, 1);
    expect(first).toMatch(/<figure class="shot"><img [^>]+><svg class="overlay" width="640" height="400" viewBox="0 0 640 400" preserveAspectRatio="none"/);
    expect(first).toMatch(/<g class="marker marker-click" data-action="0">/);
    expect(section(html, 2)).toMatch(/<g class="marker marker-drag" data-action="0">.*<polyline points="60,300 300,300 300,1\d\d(\.\d)?"/);
    expect(section(html, 5)).toMatch(/<g class="marker marker-click" data-action="0" data-failed="true">/);
  });

  it('shows a missing screenshot as such, with the markers on a placeholder', () => {
    const missing = section(html, 5);
    expect(missing).toContain('screenshot missing');
    expect(missing).not.toContain('<img');
    expect(missing).toContain('<figure class="shot placeholder" style="aspect-ratio: 640 / 400; width: 640px">');
    expect(missing).toContain('class="overlay"');
  });

  it('shows actions as sentences and JSON, with what each did', () => {
    const second = section(html, 2);
    expect(second).toContain('Drag from (60, 300) to (300, 120) through 1 point');
    expect(second).toContain('Double-click (right) at (500, 200)');
    expect(second).toContain(escapeHtml(JSON.stringify(FIXTURE_STEPS[1]?.actions[0])));
    expect(second).toContain('the screen did not change after the drag');
    // The question gets no result; the click after it gets its own, not the question's slot.
    const fourth = section(html, 4);
    expect(fourth).toMatch(/<li class="action" data-index="0"><span class="sentence">Ask the user: Which file\?<\/span> <code/);
    expect(fourth).toMatch(/data-index="1"><span class="sentence">Left-click at \(320, 200\)<\/span> <span class="result ok">ok · 12 ms/);
    expect(fourth).toContain('Which file? → report.txt');
    const fifth = section(html, 5);
    expect(fifth).toContain('<span class="result failed">failed: <b>out_of_bounds</b> — x=900 lies outside the 640x400 image</span>');
  });

  it('shows per-step and cumulative cost and tokens, and the run totals', () => {
    expect(section(html, 1)).toContain('<dd class="cost-step">$0.0013</dd><dt>run so far</dt><dd class="cost-total">$0.0013</dd>');
    expect(section(html, 2)).toContain('<dd class="cost-step">$0.0014</dd><dt>run so far</dt><dd class="cost-total">$0.0027</dd>');
    expect(section(html, 3)).toContain('<dd class="tokens">1,400 in · 60 out</dd>');
    expect(html).toContain('<dd class="meta-cost">$0.0093</dd>');
    expect(html).toContain('<dd class="meta-tokens">8,700 in · 245 out</dd>');
    expect(html).toContain('<dd class="meta-status"><span class="status status-finished">finished</span></dd>');
    expect(html).toContain('<dd class="meta-reason">the model reported the task done</dd>');
    expect(html).toContain('<dd class="meta-model">test-model <span class="muted">(tools)</span></dd>');
    expect(html).toContain('<dd>2026-11-29 12:45:01 UTC</dd>');
  });

  it('keeps a secret masked and shows memory events', () => {
    expect(section(html, 6)).toContain('Type ******** (secret, masked)');
    expect(section(html, 3)).toContain('Memory (1 update)');
    expect(section(html, 3)).toContain('typed &lt;the&gt; name');
  });

  it('shows a secret masked even if the record holds it in clear', async () => {
    const leaked: SessionRecord = {
      ...session,
      steps: [{ ...(session.steps[5] as SessionRecord['steps'][number]), actions: [{ type: 'type', text: 'hunter2', secret: true }] }],
    };
    const page = await renderHtmlReport(leaked, async () => null);
    expect(page).not.toContain('hunter2');
    expect(page).toContain('********');
  });

  it('renders a session without steps, and unreadable screenshots, without failing', async () => {
    const empty = await renderHtmlReport({ ...session, events: [], steps: [] }, async () => null);
    expect(empty).toContain('This session has no recorded steps.');
    expect(empty).not.toContain('id="scrubber"');
    const garbage = await renderHtmlReport(session, async () => Buffer.from('not an image'));
    expect(section(garbage, 1)).toContain('screenshot unreadable');
    const throwing = await renderHtmlReport(session, () => Promise.reject(new Error('disk on fire')));
    expect(section(throwing, 1)).toContain('screenshot missing');
  });

  it('reads screenshots only from inside the session folder', async () => {
    const read = screenshotReader(session.directory);
    const ref = (path: string) => ({ id: 'x', path, width: 1, height: 1, mime: 'image/png' as const });
    expect(await read(ref('session.json'))).not.toBeNull();
    expect(await read(ref('../index.jsonl'))).toBeNull();
    expect(await read(ref(join(session.directory, '..', 'index.jsonl')))).toBeNull();
    expect(await read(ref('/etc/hostname'))).toBeNull();
    expect(await read(ref('screenshots/none.jpg'))).toBeNull();
  });

  it('stays inert with a tampered record, and shows a step it cannot draw as data', async () => {
    const base = session.steps[0] as SessionRecord['steps'][number];
    const hostile = '"><script>alert(1)</script>';
    const tampered: SessionRecord = {
      ...session,
      events: [],
      steps: [
        {
          ...base,
          step: 1,
          screenshot: { id: 'x', path: 'screenshots/none.jpg', width: `1" onload="alert(1)` as unknown as number, height: 400, mime: 'image/jpeg' },
          actions: [{ type: hostile, x: 1, y: 2 } as unknown as SessionRecord['steps'][number]['actions'][number]],
        },
        { ...base, step: 2, actions: [null as unknown as SessionRecord['steps'][number]['actions'][number]] },
        { ...base, step: 3, actions: [{ type: 'drag', button: 'left' } as SessionRecord['steps'][number]['actions'][number]] },
      ],
    };
    const page = await renderHtmlReport(tampered, async () => null);
    expect(page.match(/<script/gi)).toHaveLength(1);
    expect(page).not.toContain('onload="');
    expect(section(page, 1)).toContain('screenshot missing');
    expect(section(page, 1)).toContain(escapeHtml(hostile));
    expect(section(page, 2)).toContain('this step could not be shown');
    expect(section(page, 3)).toContain('Drag from');
  });

  it('describes every kind of action in words', () => {
    expect(actionSentence({ type: 'scroll', direction: 'down', amount: 1, x: 5, y: 6 })).toBe('Scroll down 1 notch at (5, 6)');
    expect(actionSentence({ type: 'click', x: 1, y: 2, button: 'middle', modifiers: ['ctrl', 'shift'] })).toBe('Middle-click at (1, 2) holding ctrl+shift');
    expect(actionSentence({ type: 'type', text: 'a\nb' })).toBe('Type "a\\nb"');
    expect(actionSentence({ type: 'hotkey', keys: ['ctrl', 's'] })).toBe('Press ctrl+s');
    expect(actionSentence({ type: 'wait', ms: 500 })).toBe('Wait 500 ms');
    expect(actionSentence({ type: 'fail', reason: 'no way' })).toBe('Give up: no way');
  });

  it('is the same page for the same record', async () => {
    expect(await renderHtmlReport(session, screenshotReader(session.directory))).toBe(html);
  });
});

describe('renderHtmlReport: a batch', () => {
  it('says how much of the batch ran, and for each action not run, why', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mnemo-report-batch-'));
    try {
      const fixture = await recordFixtureSession(dataDir, { steps: [BATCH_STEP], missingStep: null });
      const read = await readSession(dataDir, fixture.sessionId);
      if (!read.ok) throw new Error(read.message);
      const step = section(await renderHtmlReport(read.session, screenshotReader(read.session.directory)), 1);
      expect(step).toContain('<p class="batch">A batch of 4 actions: 1 ran, 3 not run</p>');
      expect(step.match(/<li class="action not-run"/g)).toHaveLength(3);
      expect(step).toContain(`not run: ${escapeHtml(BATCH_STEP.notRun!.reason)}`);
      expect(step).toMatch(/<li class="action" data-index="0">.*ok ·/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
