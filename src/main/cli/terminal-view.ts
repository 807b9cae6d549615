/**
 * The live terminal view of a run: one block per step with the streamed thought, each action and
 * its result, what the step cost and the cost so far; at the end the run's totals. The figures
 * are the shared fold of the events shown (src/shared/run-totals.ts), the one the record and the
 * window use. Writes to stderr, so stdout stays free for --json.
 */
import { describeAction } from '../../shared/describe-action';
import type { AgentEvent } from '../../shared/events';
import { addToTotals, NO_TOTALS, type RunTotals } from '../../shared/run-totals';

const useColour = process.stderr.isTTY === true && process.env.NO_COLOR === undefined;
const paint = (code: string) => (text: string) => (useColour ? `\x1b[${code}m${text}\x1b[0m` : text);
const dim = paint('2');
const bold = paint('1');
const red = paint('31');
const green = paint('32');
const yellow = paint('33');

export class TerminalView {
  private thinking = false;
  private streamed = false;
  private totals: RunTotals = NO_TOTALS;

  constructor(private readonly out: NodeJS.WritableStream = process.stderr) {}

  /** Folds the event into the totals and, unless `print` is false, shows it. */
  show(event: AgentEvent, print = true): void {
    this.totals = addToTotals(this.totals, event);
    if (!print) return;
    const { usage } = this.totals;
    const write = (text: string) => this.out.write(text);
    const endThought = () => {
      if (this.thinking) write('\n');
      this.thinking = false;
    };
    switch (event.type) {
      case 'run-started':
        write(`${bold('mnemo')} ${event.task}\n${dim(`model ${event.model} (${event.family}), up to ${event.limits.maxSteps} steps${event.limits.maxCostUsd !== null ? `, $${event.limits.maxCostUsd}` : ''}`)}\n`);
        break;
      case 'step-started':
        this.streamed = false;
        write(`\n${bold(`step ${event.step}`)}\n`);
        break;
      case 'thought-delta':
        if (!this.thinking) write(dim('  thought: '));
        this.thinking = true;
        this.streamed = true;
        write(dim(event.delta.replace(/\n/g, '\n           ')));
        break;
      case 'prediction':
        // A model that does not stream its thought shows it whole here.
        if (!this.thinking && !this.streamed && event.thought) write(dim(`  thought: ${event.thought}\n`));
        endThought();
        break;
      case 'model-error':
        endThought();
        write(yellow(`  model: ${event.kind}: ${event.message} (${event.consecutive}/${event.limit})\n`));
        break;
      case 'action':
        write(`  → ${describeAction(event.action)}\n`);
        break;
      case 'action-result':
        write(event.result.ok ? green('    ✓ done\n') : red(`    ✗ ${event.result.error.kind}: ${event.result.error.message}\n`));
        break;
      case 'note':
        write(yellow(`  note: ${event.message}\n`));
        break;
      case 'ask-user':
        endThought();
        write(yellow(`  ? ${event.question}\n`));
        break;
      case 'step-finished':
        endThought();
        write(dim(`  ${(event.durationMs / 1000).toFixed(1)} s${event.usage ? `, $${event.usage.costUsd.toFixed(4)} this step` : ''}, $${usage.costUsd.toFixed(4)} so far\n`));
        break;
      case 'workflow-step': {
        endThought();
        const colour = event.decision === 'replayed' ? dim : event.decision === 'stopped' ? red : yellow;
        const by = event.foundBy ? ` by ${event.foundBy}` : '';
        write(colour(`  ${event.decision}${by}${event.modelCalls > 0 ? ` (${event.modelCalls} model call)` : ''}: ${event.how}\n`));
        break;
      }
      case 'paused':
        write(yellow('paused\n'));
        break;
      case 'resumed':
        write(yellow('resumed\n'));
        break;
      case 'run-finished': {
        endThought();
        const colour = event.status === 'finished' ? green : event.status === 'aborted' || event.status === 'refused' ? yellow : red;
        write(`\n${colour(`${event.status}`)}: ${event.reason}${event.summary ? `\n${event.summary}` : ''}\n`);
        write(dim(`${this.totals.steps} steps, ${usage.inputTokens} in / ${usage.outputTokens} out tokens, $${usage.costUsd.toFixed(4)}\n`));
        break;
      }
      default:
        break;
    }
  }
}
