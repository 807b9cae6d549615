/**
 * The live terminal view of a run: one block per step with the streamed thought, each action and
 * its result, and the cost so far. Writes to stderr, so stdout stays free for --json.
 */
import { describeAction } from '../../shared/describe-action';
import type { AgentEvent } from '../../shared/events';

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

  constructor(private readonly out: NodeJS.WritableStream = process.stderr) {}

  show(event: AgentEvent): void {
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
        write(dim(`  ${(event.durationMs / 1000).toFixed(1)} s, $${event.costUsd.toFixed(4)} so far\n`));
        break;
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
        write(dim(`${event.steps} steps, ${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens, $${event.usage.costUsd.toFixed(4)}\n`));
        break;
      }
      default:
        break;
    }
  }
}
