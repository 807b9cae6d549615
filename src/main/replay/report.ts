/**
 * A recorded session as ONE self-contained HTML file that opens offline in any browser: inline CSS
 * and JS, each screenshot embedded as a data URL (the recorded bytes, not re-encoded), the action
 * markers as an inline SVG over each image (so they scale with it), thoughts, results, costs and
 * a step scrubber. A Content-Security-Policy meta tag allows nothing but that.
 *
 * Everything recorded (task, thoughts, typed text, messages) is text from a user or a model and is
 * escaped; the script reads the DOM only and carries no recorded data.
 */
import { loadSharp } from '../image/sharp';
import { isControlAction, type Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { AgentEventOf, ScreenshotRef } from '../../shared/events';
import type { Size } from '../../shared/frame';
import type { SessionRecord, RecordedStep } from '../store/session-reader';
import { actionOverlaySvg } from './annotate';
import { recordedScreenshot, resultsByAction, sniffImageMime, type ImageReader } from './inspect';
import { actionSentence, shownAction } from '../../shared/describe-action';
import { formatDuration, formatUsd } from '../../shared/format';
import { actionOutcomes } from '../../shared/steps';

export const REPORT_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string);
}

function formatInt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function formatDate(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

function resultHtml(action: Action, result: ActionResult | null, notRun: string | null): string {
  if (result === null) {
    if (notRun !== null) return `<span class="result skipped">not run: ${escapeHtml(notRun)}</span>`;
    return isControlAction(action) ? '' : '<span class="result skipped">not executed</span>';
  }
  if (result.ok) {
    const detail = result.detail ? ` — ${escapeHtml(result.detail)}` : '';
    return `<span class="result ok">ok · ${escapeHtml(formatDuration(result.durationMs))}${detail}</span>`;
  }
  return `<span class="result failed">failed: <b>${escapeHtml(result.error?.kind ?? 'error')}</b> — ${escapeHtml(result.error?.message ?? '')}</span>`;
}

/** A size taken from the record, as whole positive pixels, or null when it is not one. */
function recordedSize(size: Size): Size | null {
  const width = Math.round(Number(size.width));
  const height = Math.round(Number(size.height));
  return Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0 ? { width, height } : null;
}

interface EmbeddedImage {
  dataUrl: string;
  size: Size;
}

/** The recorded bytes as a data URL, or why they cannot be shown. */
async function embed(ref: ScreenshotRef, readImage: ImageReader): Promise<{ ok: true; image: EmbeddedImage } | { ok: false; problem: string }> {
  const bytes = await readImage(ref).catch(() => null);
  if (!bytes) return { ok: false, problem: 'screenshot missing' };
  const mime = sniffImageMime(bytes);
  if (!mime) return { ok: false, problem: 'screenshot unreadable' };
  // The overlay is drawn in the image's own pixels; the record's size is the fallback.
  let size: Size = recordedSize(ref) ?? { width: 1, height: 1 };
  try {
    const metadata = await (await loadSharp())(bytes).metadata();
    if (metadata.width && metadata.height) size = { width: metadata.width, height: metadata.height };
  } catch {
    return { ok: false, problem: 'screenshot unreadable' };
  }
  return { ok: true, image: { dataUrl: `data:${mime};base64,${bytes.toString('base64')}`, size } };
}

async function figureHtml(session: SessionRecord, view: RecordedStep, results: Array<ActionResult | null>, readImage: ImageReader): Promise<string> {
  const overlay = (size: Size) => actionOverlaySvg(size, view.actions, results);
  const placeholder = (claimed: Size | null, note: string) => {
    const size = claimed ? recordedSize(claimed) : null;
    const style = size ? ` style="aspect-ratio: ${size.width} / ${size.height}; width: ${size.width}px"` : '';
    return `<figure class="shot placeholder"${style}><p class="shot-note">${escapeHtml(note)}</p>${size ? overlay(size) : ''}</figure>`;
  };
  const screenshot = recordedScreenshot(session, view);
  if (!screenshot) {
    const size = view.frame?.image ? { width: view.frame.image.width, height: view.frame.image.height } : null;
    return placeholder(size, 'no screenshot recorded');
  }
  const embedded = await embed(screenshot, readImage);
  if (!embedded.ok) return placeholder({ width: screenshot.width, height: screenshot.height }, embedded.problem);
  const { dataUrl, size } = embedded.image;
  return (
    `<figure class="shot">` +
    `<img src="${dataUrl}" width="${size.width}" height="${size.height}" alt="Screenshot of step ${escapeHtml(String(view.step))}">` +
    overlay(size) +
    `</figure>`
  );
}

function list<T>(items: readonly T[], title: string, className: string, render: (item: T) => string): string {
  if (items.length === 0) return '';
  return `<h3>${title}</h3><ul class="${className}">${items.map((item) => `<li>${render(item)}</li>`).join('')}</ul>`;
}

async function stepHtml(session: SessionRecord, view: RecordedStep, readImage: ImageReader): Promise<string> {
  const results = resultsByAction(session, view);
  const figure = await figureHtml(session, view, results, readImage);
  const thought = view.thought === null ? '<p class="thought none">(no thought recorded)</p>' : `<p class="thought">${escapeHtml(view.thought)}</p>`;
  const outcomes = actionOutcomes(view);
  const ran = outcomes.filter((outcome) => outcome.ran).length;
  // A batch (several actions in one reply) says how much of it ran, and each action not run why.
  const batch = view.actions.length > 1 ? `<p class="batch">A batch of ${view.actions.length} actions: ${ran} ran, ${view.actions.length - ran} not run</p>` : '';
  const actions =
    view.actions.length === 0
      ? '<p class="none">(no actions)</p>'
      : `${batch}<ol class="actions">${view.actions
          .map((action, index) => {
            const result = results[index] ?? null;
            const shown = shownAction(action);
            const failed = result !== null && !result.ok;
            const outcome = outcomes[index];
            const notRun = outcome !== undefined && !outcome.ran && outcome.why !== 'not reached' ? outcome.why : null;
            return (
              `<li class="action${failed ? ' failed' : ''}${notRun !== null ? ' not-run' : ''}" data-index="${index}">` +
              `<span class="sentence">${escapeHtml(actionSentence(shown))}</span> ${resultHtml(action, result, notRun)}` +
              `<code class="json">${escapeHtml(JSON.stringify(shown))}</code>` +
              `</li>`
            );
          })
          .join('')}</ol>`;
  const usage = view.usage;
  const cost =
    `<dl class="cost">` +
    `<dt>step cost</dt><dd class="cost-step">${formatUsd(usage?.costUsd)}</dd>` +
    `<dt>run so far</dt><dd class="cost-total">${formatUsd(view.costUsd)}</dd>` +
    `<dt>tokens</dt><dd class="tokens">${usage ? `${formatInt(usage.inputTokens)} in · ${formatInt(usage.outputTokens)} out` : '—'}</dd>` +
    `<dt>duration</dt><dd>${formatDuration(view.durationMs)}</dd>` +
    `</dl>`;
  const errors = list(view.errors, 'Errors', 'errors', (error) => `<b>${escapeHtml(error.kind)}</b>: ${escapeHtml(error.message)}`);
  const notes = list(view.notes, 'Notes', 'notes', (note) => escapeHtml(note));
  const questions = list(
    view.questions,
    'Questions',
    'questions',
    (q) => `<span class="kind">${escapeHtml(q.kind)}</span> ${escapeHtml(q.question)} → ${q.answer === null ? '<i>no answer</i>' : escapeHtml(q.answer)}`,
  );
  const memory =
    view.memory.length === 0
      ? ''
      : `<details class="memory"><summary>Memory (${view.memory.length} update${view.memory.length === 1 ? '' : 's'})</summary><pre>${escapeHtml(JSON.stringify(view.memory, null, 2))}</pre></details>`;
  const step = escapeHtml(String(view.step));
  const heading = [`Step ${view.step}`, formatDuration(view.durationMs), formatUsd(usage?.costUsd)].filter((part) => part !== '—').join(' · ');
  return (
    `<section class="step" id="step-${step}" data-step="${step}" aria-labelledby="step-${step}-title">` +
    `<h2 id="step-${step}-title">${escapeHtml(heading)}</h2>` +
    `<div class="step-body">${figure}<div class="details">` +
    `<h3>Thought</h3>${thought}<h3>Actions</h3>${actions}${errors}${notes}${questions}<h3>Cost</h3>${cost}${memory}` +
    `</div></div></section>`
  );
}

function headerHtml(session: SessionRecord): string {
  const { meta, events, steps, warnings } = session;
  const started = events.find((event): event is AgentEventOf<'run-started'> => event.type === 'run-started');
  const finished = [...events].reverse().find((event): event is AgentEventOf<'run-finished'> => event.type === 'run-finished');
  // The session's totals as the reader gives them: the shared fold of its events (the recorder's at the end).
  const usage = meta.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: meta.costUsd };
  const rows: Array<[string, string, string?]> = [
    ['Session', escapeHtml(meta.id)],
    ['Status', `<span class="status status-${escapeHtml(meta.status)}">${escapeHtml(meta.status)}</span>`, 'status'],
    ['Reason', meta.reason === null ? '—' : escapeHtml(meta.reason), 'reason'],
    ...(finished?.summary ? ([['Summary', escapeHtml(finished.summary)]] as Array<[string, string]>) : []),
    ['Model', `${escapeHtml(meta.model)} <span class="muted">(${escapeHtml(meta.family)})</span>`, 'model'],
    ['Started', formatDate(meta.startedAt)],
    ['Ended', formatDate(meta.endedAt)],
    ['Duration', meta.endedAt === null ? '—' : formatDuration(meta.endedAt - meta.startedAt)],
    ['Steps', String(steps.length), 'steps'],
    ['Cost', formatUsd(usage.costUsd), 'cost'],
    ['Tokens', `${formatInt(usage.inputTokens)} in · ${formatInt(usage.outputTokens)} out`, 'tokens'],
    ...(started?.limits ? ([['Limits', `${started.limits.maxSteps} steps, ${started.limits.maxCostUsd === null ? 'no cost limit' : formatUsd(started.limits.maxCostUsd)}`]] as Array<[string, string]>) : []),
    ...(meta.replayOf ? ([['Replay of', escapeHtml(meta.replayOf)]] as Array<[string, string]>) : []),
  ];
  const warningList =
    warnings.length === 0
      ? ''
      : `<details class="warnings"><summary>${warnings.length} problem${warnings.length === 1 ? '' : 's'} reading the record</summary><ul>${warnings
          .map((warning) => {
            // Newer readers name the file; a line of 0 is about the file as a whole.
            const file = (warning as { file?: string }).file ?? 'events.jsonl';
            return `<li>${escapeHtml(file)}${warning.line > 0 ? ` line ${warning.line}` : ''}: ${escapeHtml(warning.message)}</li>`;
          })
          .join('')}</ul></details>`;
  return (
    `<header><p class="brand">Mnemo session report</p><h1 class="task">${escapeHtml(meta.task)}</h1>` +
    `<dl class="summary">${rows.map(([term, value, name]) => `<dt>${term}</dt><dd${name ? ` class="meta-${name}"` : ''}>${value}</dd>`).join('')}</dl>` +
    warningList +
    `</header>`
  );
}

const STYLE = `
:root { color-scheme: light dark; --bg: #f6f6f8; --card: #fff; --text: #1c1c1e; --muted: #6e6e73; --line: #d8d8dc; --accent: #0a84ff; --ok: #1f8a3b; --bad: #d70015; }
@media (prefers-color-scheme: dark) { :root { --bg: #1c1c1e; --card: #2c2c2e; --text: #f2f2f7; --muted: #a1a1a6; --line: #3a3a3c; --ok: #30d158; --bad: #ff453a; } }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, main, nav { max-width: 1400px; margin: 0 auto; padding: 0 1rem; }
header { padding-top: 1rem; }
.brand { margin: 0; color: var(--muted); font-size: 0.85rem; text-transform: uppercase; letter-spacing: 0.06em; }
h1 { margin: 0.2rem 0 0.8rem; font-size: 1.5rem; white-space: pre-wrap; overflow-wrap: anywhere; }
h2 { margin: 0 0 0.6rem; font-size: 1.15rem; }
h3 { margin: 0.9rem 0 0.3rem; font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; margin: 0 0 0.8rem; }
dl.summary dt, dl.cost dt { color: var(--muted); }
dl.summary dd, dl.cost dd { margin: 0; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.status { font-weight: 600; }
.status-finished { color: var(--ok); }
.status-failed, .status-stuck, .status-aborted, .status-refused, .status-limit, .status-interrupted { color: var(--bad); }
nav.scrubber { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; align-items: center; gap: 0.6rem; padding: 0.6rem 1rem; background: var(--bg); border-bottom: 1px solid var(--line); }
nav.scrubber input[type="range"] { flex: 1 1 16rem; min-width: 10rem; }
nav.scrubber button { font: inherit; padding: 0.25rem 0.7rem; border-radius: 6px; border: 1px solid var(--line); background: var(--card); color: var(--text); cursor: pointer; }
nav.scrubber button:disabled { opacity: 0.4; cursor: default; }
#position { min-width: 9rem; font-variant-numeric: tabular-nums; }
main { padding-top: 1rem; padding-bottom: 2rem; }
section.step { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin: 0 0 1rem; }
section.step.current { border-color: var(--accent); }
.step-body { display: grid; grid-template-columns: minmax(0, max-content) minmax(18rem, 1fr); gap: 1rem; align-items: start; }
@media (max-width: 900px) { .step-body { grid-template-columns: minmax(0, 1fr); } }
figure.shot { position: relative; margin: 0; width: fit-content; max-width: 100%; line-height: 0; border: 1px solid var(--line); }
figure.shot img { display: block; max-width: 100%; height: auto; }
figure.shot svg.overlay { position: absolute; left: 0; top: 0; width: 100%; height: 100%; overflow: hidden; pointer-events: none; }
figure.shot.placeholder { max-width: 100%; line-height: 1.45; background: repeating-linear-gradient(45deg, var(--bg), var(--bg) 10px, var(--card) 10px, var(--card) 20px); display: flex; align-items: center; justify-content: center; min-height: 6rem; }
.shot-note { margin: 0; padding: 0.3rem 0.7rem; border-radius: 6px; background: var(--card); color: var(--bad); font-weight: 600; z-index: 1; }
.thought { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.none { color: var(--muted); font-style: italic; }
ol.actions { margin: 0; padding-left: 1.4rem; }
ol.actions li { margin: 0 0 0.5rem; }
.sentence { white-space: pre-wrap; overflow-wrap: anywhere; }
.result { display: inline-block; font-size: 0.85rem; padding: 0 0.4rem; border-radius: 4px; overflow-wrap: anywhere; }
.result.ok { color: var(--ok); }
.result.failed { color: #fff; background: var(--bad); }
.result.skipped { color: var(--muted); border: 1px dashed var(--line); }
p.batch { margin: 0 0 0.3rem; color: var(--muted); font-size: 0.9rem; }
li.not-run .sentence { text-decoration: line-through; color: var(--muted); }
code.json, pre { display: block; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; color: var(--muted); margin: 0.15rem 0 0; }
dl.cost { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 1rem; margin: 0; font-variant-numeric: tabular-nums; }
ul.errors li { color: var(--bad); }
ul.errors, ul.notes, ul.questions { margin: 0; padding-left: 1.2rem; overflow-wrap: anywhere; }
.questions .kind { color: var(--muted); font-size: 0.85rem; }
details { margin-top: 0.8rem; }
`;

/** The scrubber: shows one step at a time (or all); carries no recorded data, reads the DOM. */
const SCRIPT = `
(function () {
  'use strict';
  var steps = Array.prototype.slice.call(document.querySelectorAll('section.step'));
  var nav = document.getElementById('scrubber');
  if (!nav || steps.length === 0) return;
  var range = document.getElementById('scrub');
  var prev = document.getElementById('prev');
  var next = document.getElementById('next');
  var position = document.getElementById('position');
  var all = document.getElementById('show-all');
  var current = 0;
  function show(index, scroll) {
    current = Math.max(0, Math.min(steps.length - 1, index));
    steps.forEach(function (section, k) {
      section.hidden = !all.checked && k !== current;
      section.classList.toggle('current', k === current);
    });
    range.value = String(current + 1);
    prev.disabled = current === 0;
    next.disabled = current === steps.length - 1;
    position.textContent = 'Step ' + steps[current].getAttribute('data-step') + ' (' + (current + 1) + ' of ' + steps.length + ')';
    if (scroll && all.checked) steps[current].scrollIntoView({ block: 'start' });
  }
  function fromHash() {
    var match = /^#step-(\\d+)$/.exec(location.hash);
    if (!match) return -1;
    for (var k = 0; k < steps.length; k++) if (steps[k].getAttribute('data-step') === match[1]) return k;
    return -1;
  }
  range.max = String(steps.length);
  range.addEventListener('input', function () { show(Number(range.value) - 1, true); });
  prev.addEventListener('click', function () { show(current - 1, true); });
  next.addEventListener('click', function () { show(current + 1, true); });
  all.addEventListener('change', function () { show(current, true); });
  window.addEventListener('hashchange', function () { var k = fromHash(); if (k >= 0) show(k, true); });
  document.addEventListener('keydown', function (event) {
    var target = event.target;
    if (target === range || (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && target.type !== 'checkbox')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var to = { ArrowLeft: current - 1, ArrowRight: current + 1, PageUp: current - 1, PageDown: current + 1, Home: 0, End: steps.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    show(to, true);
  });
  nav.hidden = false;
  var start = fromHash();
  show(start >= 0 ? start : 0, false);
})();
`;

/**
 * The whole report. `readImage` gives a screenshot's bytes (null when gone); a missing or
 * unreadable screenshot is shown as such, with the markers on a placeholder of the same size.
 */
export async function renderHtmlReport(session: SessionRecord, readImage: ImageReader): Promise<string> {
  const sections: string[] = [];
  for (const view of session.steps) {
    try {
      sections.push(await stepHtml(session, view, readImage));
    } catch (error) {
      // A record this version cannot draw (damaged, or from a newer version): show it as it is.
      const step = escapeHtml(String(view.step));
      sections.push(
        `<section class="step" id="step-${step}" data-step="${step}"><h2>Step ${step}</h2>` +
          `<p class="shot-note">this step could not be shown: ${escapeHtml((error as Error).message)}</p>` +
          `<pre>${escapeHtml(JSON.stringify(view, null, 2))}</pre></section>`,
      );
    }
  }
  const count = session.steps.length;
  // Hidden until the script runs: without scripts every step is simply shown one after another.
  const nav =
    count === 0
      ? ''
      : `<nav class="scrubber" id="scrubber" aria-label="Steps" hidden>` +
        `<button type="button" id="prev" title="Previous step (←)">◀ Prev</button>` +
        `<input type="range" id="scrub" min="1" max="${count}" step="1" value="1" aria-label="Step">` +
        `<button type="button" id="next" title="Next step (→)">Next ▶</button>` +
        `<output id="position" aria-live="polite"></output>` +
        `<label><input type="checkbox" id="show-all"> show all steps</label>` +
        `</nav>`;
  const body = count === 0 ? '<p class="none">This session has no recorded steps.</p>' : sections.join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Mnemo">
<link rel="icon" href="data:,">
<title>${escapeHtml(`Mnemo · ${session.meta.task}`)}</title>
<style>${STYLE}</style>
</head>
<body>
${headerHtml(session)}
${nav}
<main id="steps">
${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
