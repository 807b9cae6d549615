/**
 * Parameters: recorded values become `{{name}}` when a workflow is saved, and names become values
 * when it runs. Pure functions.
 *
 * - `--param NAME=VALUE`: every typed text that contains VALUE, whole or as part of a longer text,
 *   gets `{{NAME}}` in its place (longer values first, so `Ada Lovelace` wins over `Ada`).
 * - `--secret NAME`: the parameter is a secret; its value is never kept. Without a value it takes
 *   the next text the recording masked (a password typed into a password field).
 * - Without `--param`, the values typed are proposed (`proposeParams`), named after the words
 *   near the field they went into when there are some.
 */
import type { Action } from '../../shared/actions';
import { MASK } from '../../shared/describe-action';
import { chainRedactors, SecretMask, type Redactor } from '../../shared/secret-mask';
import { ParamNameSchema, placeholdersIn, type ProposedParam, type WorkflowParam } from '../../shared/workflow';

export interface ParamRequest {
  name: string;
  /** Absent: a secret that takes the next masked typing. */
  value?: string;
  secret: boolean;
}

/** A typed text of the recording, in workflow step order. */
export interface TypedText {
  /** The workflow step (1, 2, …). */
  step: number;
  text: string;
  /** Words near where it was typed (the previous click's text anchors), for naming. */
  near: string[];
}

export type ParamsApplied =
  | { ok: true; texts: Map<number, string>; params: WorkflowParam[] }
  | { ok: false; message: string };

/** Typed texts the recording masked (secrets): `********`. */
export const isMaskedText = (text: string) => text === MASK;

/** The proposal for a typed text: the text without the Enter or Tab it ends with. */
export function proposedValue(text: string): string {
  return text.replace(/[\r\n\t]+$/, '').trim();
}

/**
 * Replaces the requested values by placeholders in the typed texts. Returns the new text of every
 * typing that changed (by step) and the parameters, in the order asked; a value found in no typed
 * text, a secret with nothing to take, a bad or repeated name is an error naming it.
 */
export function applyParams(typed: readonly TypedText[], requests: readonly ParamRequest[]): ParamsApplied {
  const seen = new Set<string>();
  for (const request of requests) {
    const name = ParamNameSchema.safeParse(request.name);
    if (!name.success) return { ok: false, message: `parameter "${request.name}": ${name.error.issues[0]?.message ?? 'bad name'}` };
    if (seen.has(request.name)) return { ok: false, message: `parameter "${request.name}" is given twice` };
    seen.add(request.name);
    if (request.value !== undefined && request.value === '') return { ok: false, message: `parameter "${request.name}" has an empty value: nothing to find in the typed text` };
    if (request.value === MASK) return { ok: false, message: `parameter "${request.name}": the value ${MASK} is the mask of a secret; name the secret with --secret ${request.name}` };
  }
  const texts = new Map<number, string>(typed.map((typing) => [typing.step, typing.text]));
  // Masked typings, in order, for the secrets given without a value.
  const masked = typed.filter((typing) => isMaskedText(typing.text)).map((typing) => typing.step);
  for (const request of requests.filter((r) => r.value === undefined)) {
    const step = masked.shift();
    if (step === undefined) {
      return { ok: false, message: `--secret ${request.name} has no value and the recording has no masked text left for it (give it as --param ${request.name}=VALUE)` };
    }
    texts.set(step, `{{${request.name}}}`);
  }
  const byLength = requests.filter((r): r is ParamRequest & { value: string } => r.value !== undefined).sort((a, b) => b.value.length - a.value.length);
  for (const request of byLength) {
    let found = false;
    for (const [step, text] of texts) {
      if (!text.includes(request.value)) continue;
      texts.set(step, replaceOutsidePlaceholders(text, request.value, `{{${request.name}}}`));
      found = true;
    }
    if (!found) return { ok: false, message: `--param ${request.name}: no text typed in the recording contains ${request.secret ? 'its value' : JSON.stringify(request.value)}` };
  }
  const changed = new Map([...texts].filter(([step, text]) => typed.find((typing) => typing.step === step)?.text !== text));
  const params = requests.map((request): WorkflowParam => (request.secret || request.value === undefined ? { name: request.name, secret: true } : { name: request.name, secret: false, example: request.value }));
  return { ok: true, texts: changed, params };
}

/** Replaces `value` in the parts of `text` that are not already a placeholder. */
function replaceOutsidePlaceholders(text: string, value: string, placeholder: string): string {
  return text
    .split(/(\{\{[A-Za-z_][A-Za-z0-9_]*\}\})/)
    .map((part) => (/^\{\{[A-Za-z_][A-Za-z0-9_]*\}\}$/.test(part) ? part : part.split(value).join(placeholder)))
    .join('');
}

/** A parameter name from the words near a field: `#field` → `field`, `E-mail address` → `e_mail_address`. */
function nameFrom(words: readonly string[]): string | null {
  const slug = words
    .join(' ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 32)
    .replace(/_+$/, '');
  return /^[a-z_][a-z0-9_]*$/.test(slug) && slug.length >= 2 ? slug : null;
}

/** The values typed, proposed as parameters: one per distinct value, named after the field's words. */
export function proposeParams(typed: readonly TypedText[]): ProposedParam[] {
  const proposals: ProposedParam[] = [];
  const taken = new Set<string>();
  const unique = (base: string) => {
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    return name;
  };
  for (const typing of typed) {
    const secret = isMaskedText(typing.text);
    const value = secret ? MASK : proposedValue(typing.text);
    if (value === '' || placeholdersIn(value).length > 0) continue;
    const existing = secret ? undefined : proposals.find((proposal) => !proposal.secret && proposal.value === value);
    if (existing) {
      existing.steps.push(typing.step);
      continue;
    }
    const base = nameFrom(typing.near.slice(0, 2)) ?? (secret ? 'secret' : 'text');
    proposals.push({ name: unique(base), value, secret, steps: [typing.step] });
  }
  // Numbered only when a name repeats: `text` alone, else `text`, `text_2`.
  return proposals;
}

/** The proposals as requests for applyParams (`--auto-params`). */
export function proposalsAsRequests(proposals: readonly ProposedParam[]): ParamRequest[] {
  return proposals.map((proposal) => (proposal.secret ? { name: proposal.name, secret: true } : { name: proposal.name, value: proposal.value, secret: false }));
}

/** `{{name}}` in a text replaced by the values given (names not given stay as they are). */
export function fillText(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(/\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g, (whole, name: string) => values.get(name) ?? whole);
}

/** The names of a workflow's secret parameters. */
export function secretParamNames(params: readonly WorkflowParam[]): Set<string> {
  return new Set(params.filter((param) => param.secret).map((param) => param.name));
}

/** The values as a run shows and records them: a secret parameter's value is the mask. */
export function shownParamValues(values: ReadonlyMap<string, string>, secretNames: ReadonlySet<string>): Map<string, string> {
  return new Map([...values].map(([name, value]) => [name, secretNames.has(name) ? MASK : value]));
}

/** The values of the secret parameters among those given (the run masks them wherever they would show). */
export function secretParamValues(params: readonly WorkflowParam[], values: ReadonlyMap<string, string>): string[] {
  return params.flatMap((param) => {
    const value = param.secret ? values.get(param.name) : undefined;
    return value ? [value] : [];
  });
}

/** The action to run: typed text with the values in. */
export function fillAction(action: Action, values: ReadonlyMap<string, string>): Action {
  return action.type === 'type' ? { ...action, text: fillText(action.text, values) } : action;
}

export type ParamValues =
  | { ok: true; values: Map<string, string>; missingSecrets: string[] }
  | { ok: false; message: string };

/** `"a", "b"` */
const quoted = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');

/**
 * Values given for a workflow's parameters, checked: a name it does not have is an error naming
 * it (and the ones it has); `missing` are its parameters without a value.
 */
export function checkParamValues(params: readonly WorkflowParam[], names: Iterable<string>): { ok: true; missing: WorkflowParam[] } | { ok: false; message: string } {
  const given = new Set(names);
  const unknown = [...given].find((name) => !params.some((param) => param.name === name));
  if (unknown !== undefined) {
    const known = params.length > 0 ? params.map((param) => param.name).join(', ') : 'none';
    return { ok: false, message: `unknown parameter "${unknown}" (this workflow's parameters: ${known})` };
  }
  return { ok: true, missing: params.filter((param) => !given.has(param.name)) };
}

/** Every parameter has a value, else the error naming those that lack one (`how` says how to give one). */
export function completeParamValues(params: readonly WorkflowParam[], values: ReadonlyMap<string, string>, how: (name: string) => string): { ok: true } | { ok: false; message: string } {
  const checked = checkParamValues(params, values.keys());
  if (!checked.ok) return checked;
  const missing = checked.missing.map((param) => param.name);
  if (missing.length === 0) return { ok: true };
  return { ok: false, message: `missing parameter${missing.length > 1 ? 's' : ''} ${quoted(missing)}: give ${missing.map(how).join(' ')}` };
}

/**
 * The values of a run: `--set NAME=VALUE` first, then `MNEMO_PARAM_<NAME>` (the name as written or
 * in capitals). An unknown name is an error; a missing parameter too, except a secret, which is
 * left for a prompt (`missingSecrets`).
 */
export function resolveParamValues(params: readonly WorkflowParam[], sets: readonly string[], env: NodeJS.ProcessEnv): ParamValues {
  const values = new Map<string, string>();
  for (const set of sets) {
    const equals = set.indexOf('=');
    if (equals <= 0) return { ok: false, message: `--set must be NAME=VALUE, got "${set.includes('=') ? set : set.slice(0, 40)}"` };
    values.set(set.slice(0, equals), set.slice(equals + 1));
  }
  const checked = checkParamValues(params, values.keys());
  if (!checked.ok) return checked;
  const missingSecrets: string[] = [];
  for (const param of checked.missing) {
    const fromEnv = env[`MNEMO_PARAM_${param.name}`] ?? env[`MNEMO_PARAM_${param.name.toUpperCase()}`];
    if (fromEnv !== undefined) values.set(param.name, fromEnv);
    else if (param.secret) missingSecrets.push(param.name);
  }
  const complete = completeParamValues(
    params.filter((param) => !missingSecrets.includes(param.name)),
    values,
    (name) => `--set ${name}=VALUE`,
  );
  return complete.ok ? { ok: true, values, missingSecrets } : complete;
}

/**
 * The redaction of a workflow run of its own: its secret values masked in every event and in
 * everything written, as the settings' secrets are (`settings`, after them). The workflow recipe gives it
 * to the launcher, which builds the run's context with it.
 */
export function workflowRunRedaction(params: readonly WorkflowParam[], values: ReadonlyMap<string, string>, settings: Redactor): Redactor {
  return chainRedactors(new SecretMask(secretParamValues(params, values)), settings);
}
