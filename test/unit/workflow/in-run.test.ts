/**
 * Saved workflows in a model-driven run: the offer in the instructions (only for a task that
 * matches a workflow's name or description), the `run_workflow` action in every family (parsed
 * from each family's own form, written back the same way where a family writes its history), the
 * tool declared by the tool-declaring families only where workflows are offered, and what the
 * model is told of an unknown workflow, an untrusted one (never offered either) or missing parameters.
 */
import { describe, expect, it } from 'vitest';
import { parseReply, workflowFunctionTool } from '../../../src/main/model/families';
import { mnemoTools } from '../../../src/main/model/families/anthropic';
import { geminiFunctionDeclarations } from '../../../src/main/model/families/gemini';
import { formatPyautoguiAction } from '../../../src/main/model/families/pyautogui';
import { pyautoguiSystemPrompt } from '../../../src/main/model/pyautogui-model';
import { toolsSystemPrompt } from '../../../src/main/model/tools-model';
import { formatUiTarsAction, uiTarsPrompt } from '../../../src/main/model/ui-tars-model';
import { describeAction } from '../../../src/shared/describe-action';
import type { Workflow } from '../../../src/shared/workflow';
import { InRunWorkflows, workflowOffer } from '../../../src/main/workflow/in-run';
import { matchingWorkflows, offerFor } from '../../../src/main/service/workflows/workflow-offer';
import type { ModelFamily } from '../../../src/main/model/families/types';

const workflow = (name: string, description: string, params: Workflow['params'] = []): Workflow =>
  ({
    format: 'mnemo-workflow',
    version: 1,
    name,
    description,
    createdAt: 0,
    source: { session: 's', model: 'm', family: 'tools', recording: { modelCalls: 3, tokens: 300, costUsd: 0 }, summary: null },
    image: { width: 960, height: 600, format: 'jpeg' },
    screen: { width: 1280, height: 800 },
    params,
    steps: [],
  }) as unknown as Workflow;

const INVOICE = workflow('supplier-invoice', 'Fill in the invoice form for {{supplier}} with the amount {{amount}} and submit it', [
  { name: 'supplier', secret: false, example: 'ACME Ltd' },
  { name: 'amount', secret: false, example: '120.00' },
  { name: 'pin', secret: true, example: '' },
]);
const trusted = (saved: Workflow) => ({ workflow: saved, trusted: true });
const WEATHER = workflow('weather-report', 'Open the weather site and read the forecast for {{city}}', [{ name: 'city', secret: false, example: 'Oslo' }]);

describe('the offer of saved workflows', () => {
  it('names the workflows whose name or description match the task, best first, and none for a task that matches nothing', () => {
    expect(matchingWorkflows('Fill in the invoice form for Globex, amount 99', [WEATHER, INVOICE]).map((w) => w.name)).toEqual(['supplier-invoice']);
    expect(matchingWorkflows('What is the forecast in Bergen?', [WEATHER, INVOICE]).map((w) => w.name)).toEqual(['weather-report']);
    expect(matchingWorkflows('Rename the file on the desktop', [WEATHER, INVOICE])).toEqual([]);
    expect(matchingWorkflows('anything', [])).toEqual([]);
  });

  it('is a few lines: each workflow with its parameters and what it does, a secret without its example', () => {
    const offer = workflowOffer([INVOICE]) as string;
    expect(offer).toMatch(/run_workflow/);
    expect(offer).toContain('- "supplier-invoice": Fill in the invoice form for {{supplier}} with the amount {{amount}} and submit it');
    expect(offer).toContain('supplier (e.g. "ACME Ltd"), amount (e.g. "120.00"), pin (a secret)');
    expect(workflowOffer([])).toBeNull();
  });

  it('comes from the catalog for a matching task only', async () => {
    const catalog = { list: async () => ({ workflows: [trusted(INVOICE), trusted(WEATHER)] }), files: () => async () => null };
    expect(await offerFor(catalog, 'Please fill in the invoice for Initech')).toContain('"supplier-invoice"');
    expect(await offerFor(catalog, 'Empty the trash')).toBeNull();
    expect(await offerFor({ ...catalog, list: async () => Promise.reject(new Error('unreadable')) }, 'invoice')).toBeNull();
  });

  it('leaves out a workflow the user has not trusted, however well it matches', async () => {
    const catalog = { list: async () => ({ workflows: [{ workflow: INVOICE, trusted: false }, trusted(WEATHER)] }), files: () => async () => null };
    expect(await offerFor(catalog, 'Please fill in the invoice for Initech')).toBeNull();
    expect(await offerFor(catalog, 'What is the forecast in Bergen?')).toContain('"weather-report"');
  });
});

describe('run_workflow said to the model when it cannot run', () => {
  const catalog = { list: async () => ({ workflows: [trusted(INVOICE), trusted(WEATHER), { workflow: workflow('payroll', 'Pay {{who}}', [{ name: 'who', secret: false, example: 'Ada' }]), trusted: false }] }), files: () => async () => null };
  const runs = new InRunWorkflows({ catalog, model: {} as never, reader: () => ({ read: async () => [], close: async () => undefined }) }, null);
  const life = {} as never;

  it('names an unknown workflow and those saved it may run; nothing is done', async () => {
    expect(await runs.run({ type: 'run_workflow', name: 'timesheet', params: {} }, life, 3, {})).toEqual({
      steps: 0,
      report: 'run_workflow failed: there is no workflow named "timesheet" (saved: "supplier-invoice", "weather-report"); nothing was done',
    });
  });

  it('refuses a workflow the user has not trusted, saying that only the user can trust it; nothing is done', async () => {
    // The life is no lifecycle at all: a step begun would throw.
    expect(await runs.run({ type: 'run_workflow', name: 'payroll', params: { who: 'Grace' } }, life, 3, {})).toEqual({
      steps: 0,
      report: 'run_workflow "payroll" refused: the user has not trusted this workflow (it was imported, or its file changed); only the user can, with mnemo workflow trust payroll; nothing was done',
    });
  });

  it('names the missing parameters, and an unknown one', async () => {
    const missing = await runs.run({ type: 'run_workflow', name: 'supplier-invoice', params: { supplier: 'Globex' } }, life, 3, {});
    expect(missing.steps).toBe(0);
    expect(missing.report).toMatch(/^run_workflow "supplier-invoice" failed: missing parameters "amount", "pin".*; nothing was done$/);
    const unknown = await runs.run({ type: 'run_workflow', name: 'weather-report', params: { city: 'Oslo', country: 'NO' } }, life, 3, {});
    expect(unknown.report).toMatch(/unknown parameter "country" \(this workflow's parameters: city\)/);
  });
});

describe('run_workflow in every family', () => {
  const action = { type: 'run_workflow', name: 'supplier-invoice', params: { supplier: 'Globex', amount: '99.50' } };
  const args = { name: action.name, params: action.params };
  const replies: Record<ModelFamily, string> = {
    tools: JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'computer', arguments: JSON.stringify({ thought: 'A saved workflow does this.', actions: [action] }) } }] }),
    'ui-tars': `Thought: A saved workflow does this.\nAction: run_workflow(name='supplier-invoice', params='{"supplier": "Globex", "amount": "99.50"}')`,
    'openai-cua': JSON.stringify({ id: 'r1', output: [{ type: 'function_call', call_id: 'call_1', name: 'run_workflow', arguments: JSON.stringify(args) }] }),
    anthropic: JSON.stringify({ id: 'm1', content: [{ type: 'tool_use', id: 'tu_1', name: 'run_workflow', input: args }], stop_reason: 'tool_use' }),
    gemini: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'run_workflow', args } }] }, finishReason: 'STOP' }] }),
    pyautogui: "A saved workflow does this.\n```python\nmnemo.run_workflow('supplier-invoice', supplier='Globex', amount='99.50')\n```",
  };

  for (const [family, text] of Object.entries(replies) as Array<[ModelFamily, string]>) {
    it(`${family}: parses it to the action`, () => {
      expect(parseReply(family, text, { image: { width: 1280, height: 800 } })).toMatchObject({ ok: true, actions: [action] });
    });
  }

  it('the text families describe it in their prompts, the tools family in its computer tool', () => {
    expect(toolsSystemPrompt({ width: 100, height: 100 }, true)).toContain('run_workflow {name, params');
    expect(uiTarsPrompt('task')).toContain("run_workflow(name='xxx'");
    expect(pyautoguiSystemPrompt({ space: 'image', image: { width: 100, height: 100 } })).toContain("mnemo.run_workflow('form', name='Ada')");
  });

  it('ui-tars and pyautogui write it back as they read it; a bad form is an error naming it', () => {
    const parsedBack = (family: ModelFamily, text: string) => parseReply(family, text, { image: { width: 1280, height: 800 } });
    expect(parsedBack('ui-tars', `Action: ${formatUiTarsAction(action as never, (point) => point)}`)).toMatchObject({ ok: true, actions: [action] });
    expect(parsedBack('pyautogui', `\`\`\`python\n${formatPyautoguiAction(action as never, (point) => point)}\n\`\`\``)).toMatchObject({ ok: true, actions: [action] });
    expect(parsedBack('ui-tars', "Action: run_workflow(name='x', params='supplier=Globex')")).toMatchObject({ ok: false, reason: expect.stringMatching(/params must be a JSON object/) });
    expect(parsedBack('pyautogui', '```python\nmnemo.run_workflow(supplier=\'Globex\')\n```')).toMatchObject({ ok: false, reason: expect.stringMatching(/needs the workflow's name/) });
    expect(parsedBack('tools', JSON.stringify({ actions: [{ type: 'run_workflow', params: {} }] }))).toMatchObject({ ok: false });
    expect(describeAction(action as never)).toBe('run workflow supplier-invoice with supplier="Globex", amount="99.50"');
  });

  it('the tool-declaring families declare it only where workflows are offered', () => {
    expect(mnemoTools().map((tool) => tool.name)).not.toContain('run_workflow');
    expect(mnemoTools(true).map((tool) => tool.name)).toContain('run_workflow');
    expect(geminiFunctionDeclarations().map((declaration) => declaration.name)).not.toContain('run_workflow');
    expect(geminiFunctionDeclarations(true).map((declaration) => declaration.name)).toContain('run_workflow');
    expect(workflowFunctionTool().parameters.required).toEqual(['name']);
  });
});
