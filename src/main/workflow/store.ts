/**
 * Workflows on disk, owner-only like the rest of the data directory:
 *
 *   <data-dir>/workflows/<name>/workflow.json        the workflow (src/shared/workflow.ts)
 *   <data-dir>/workflows/<name>/screens/step-0003.jpg   the screens as recorded
 *   <data-dir>/workflows/<name>/anchors/step-0001-1.png the patches around targets
 *
 * workflow.json is written through the store writer (the redaction policy, disk/store-writer.ts);
 * the images are kept as they are. A workflow is written whole or not at all: into a temporary folder, then renamed into place (a
 * replaced one is renamed away first and removed after). Everything read is validated with the
 * schema: a damaged workflow is an error naming the problem, never half a workflow.
 *
 * Export: one self-contained JSON file, the workflow with its files inlined (base64). Import:
 * the same file validated whole (the schema, every file referred to present and an image of the
 * size it says) before anything is written; a bad file changes nothing.
 *
 * Trust (trust.ts): a workflow saved here is trusted, an imported one is not until `trust` (after
 * its steps were shown), and every read that matters (`list`, `readChecked`) compares the digest
 * of what is on disk with the one trusted. Step descriptions are derived at every read (the
 * schema), never taken from the file.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadSharp } from '../image/sharp';
import {
  WORKFLOW_EXPORT_FORMAT,
  WORKFLOW_VERSION,
  WorkflowExportSchema,
  WorkflowNameSchema,
  WorkflowSchema,
  describeWorkflowIssues,
  workflowFiles,
  workflowImages,
  type CheckedWorkflow,
  type Workflow,
  type WorkflowExport,
  type WorkflowImage,
} from '../../shared/workflow';
import { parseJsonWithin } from '../../shared/json';
import { errorMessage, makePrivateDir, writeFileAtomically } from '../disk/files';
import { StoreWriter } from '../disk/store-writer';
import { WorkflowTrust, workflowDigest } from './trust';

export const WORKFLOWS_DIR = 'workflows';
export const WORKFLOW_FILE = 'workflow.json';

/** `changed`: the workflow is not the one its trust was asked for (it changed after its steps were shown). */
export type StoreError = { kind: 'not_found' | 'invalid' | 'exists' | 'io' | 'changed'; message: string };
export type WorkflowStoreResult<T> = { ok: true; value: T } | { ok: false; error: StoreError };

const TEMPORARY = /^\./;

export function workflowsRoot(dataDir: string): string {
  return join(dataDir, WORKFLOWS_DIR);
}

export class WorkflowStore {
  readonly root: string;
  readonly trust: WorkflowTrust;

  constructor(
    dataDir: string,
    private readonly writer: StoreWriter = StoreWriter.asIs,
    private readonly now: () => number = Date.now,
  ) {
    this.root = workflowsRoot(dataDir);
    this.trust = new WorkflowTrust(dataDir);
  }

  private folder(name: string): string {
    return join(this.root, name);
  }

  private checkName(name: string): StoreError | null {
    const parsed = WorkflowNameSchema.safeParse(name);
    return parsed.success ? null : { kind: 'invalid', message: `"${name}" is not a workflow name: ${parsed.error.issues[0]?.message ?? 'bad name'}` };
  }

  /** Every workflow, by name, each with whether it is trusted as it is now; damaged ones are listed apart with why. */
  async list(): Promise<{ workflows: CheckedWorkflow[]; damaged: Array<{ name: string; message: string }> }> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const workflows: CheckedWorkflow[] = [];
    const damaged: Array<{ name: string; message: string }> = [];
    for (const name of names.sort()) {
      if (TEMPORARY.test(name)) continue;
      const read = await this.readChecked(name);
      if (read.ok) workflows.push(read.value);
      else if (read.error.kind !== 'not_found') damaged.push({ name, message: read.error.message });
    }
    return { workflows, damaged };
  }

  /** A workflow, its digest as it is on disk now, and whether that is the digest the user trusted. */
  async readChecked(name: string): Promise<WorkflowStoreResult<CheckedWorkflow>> {
    const read = await this.read(name);
    if (!read.ok) return read;
    const digest = await this.digestOf(read.value);
    return { ok: true, value: { workflow: read.value, digest, trusted: (await this.trust.trusted(name)) === digest } };
  }

  private digestOf(workflow: Workflow): Promise<string> {
    return workflowDigest(workflow, async (image) => {
      const bytes = await this.file(workflow.name, image);
      return bytes.ok ? bytes.value : null;
    });
  }

  /**
   * The user trusts the workflow as it is now (they were shown its steps). With `expected` (the
   * digest of what they were shown), a workflow that changed since is a `changed` error and stays
   * untrusted.
   */
  async trustWorkflow(name: string, expected?: string): Promise<WorkflowStoreResult<CheckedWorkflow>> {
    const read = await this.readChecked(name);
    if (!read.ok) return read;
    if (expected !== undefined && expected !== read.value.digest) {
      return { ok: false, error: { kind: 'changed', message: `workflow "${name}" changed after its steps were shown: look at them again before trusting it` } };
    }
    const failed = await this.trust.record(name, read.value.digest, this.now());
    if (failed) return { ok: false, error: { kind: 'io', message: failed } };
    return { ok: true, value: { ...read.value, trusted: true } };
  }

  async read(name: string): Promise<WorkflowStoreResult<Workflow>> {
    const bad = this.checkName(name);
    if (bad) return { ok: false, error: bad };
    let text: string;
    try {
      text = await readFile(join(this.folder(name), WORKFLOW_FILE), 'utf8');
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      return { ok: false, error: missing ? { kind: 'not_found', message: `no workflow "${name}"` } : { kind: 'io', message: `cannot read workflow "${name}": ${errorMessage(error)}` } };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return { ok: false, error: { kind: 'invalid', message: `workflow "${name}" is damaged: ${WORKFLOW_FILE} is not JSON (${errorMessage(error)})` } };
    }
    const parsed = WorkflowSchema.safeParse(json);
    if (!parsed.success) return { ok: false, error: { kind: 'invalid', message: `workflow "${name}" is damaged: ${describeWorkflowIssues(parsed.error.issues)}` } };
    if (parsed.data.name !== name) return { ok: false, error: { kind: 'invalid', message: `workflow "${name}" is damaged: its file names it "${parsed.data.name}"` } };
    return { ok: true, value: parsed.data };
  }

  /** One of a workflow's files (a screen, a patch). */
  async file(name: string, image: WorkflowImage): Promise<WorkflowStoreResult<Buffer>> {
    try {
      return { ok: true, value: await readFile(join(this.folder(name), image.file)) };
    } catch (error) {
      return { ok: false, error: { kind: 'invalid', message: `workflow "${name}" is damaged: ${image.file} cannot be read (${errorMessage(error)})` } };
    }
  }

  /**
   * Writes a workflow and its files as one. An existing workflow of the same name is replaced
   * when `replace`, else it is an `exists` error and nothing changes. `trusted`: made on this
   * machine (saved from a session), so trusted as written; else (imported) untrusted, its name's
   * old trust removed before anything is written.
   */
  async save(workflow: Workflow, files: ReadonlyMap<string, Buffer>, options: { replace: boolean; trusted: boolean }): Promise<WorkflowStoreResult<{ replaced: boolean }>> {
    const parsed = WorkflowSchema.safeParse(workflow);
    if (!parsed.success) return { ok: false, error: { kind: 'invalid', message: `not a valid workflow: ${describeWorkflowIssues(parsed.error.issues)}` } };
    const missing = workflowFiles(workflow).find((file) => !files.has(file));
    if (missing) return { ok: false, error: { kind: 'invalid', message: `the workflow refers to ${missing}, which was not given` } };
    const target = this.folder(workflow.name);
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    if (exists && !options.replace) return { ok: false, error: { kind: 'exists', message: `a workflow named "${workflow.name}" exists already` } };
    if (!options.trusted) {
      const failed = await this.trust.forget(workflow.name);
      if (failed) return { ok: false, error: { kind: 'io', message: failed } };
    }
    const partial = join(this.root, `.saving-${randomBytes(4).toString('hex')}`);
    try {
      await makePrivateDir(partial);
      for (const file of workflowFiles(workflow)) {
        await makePrivateDir(dirname(join(partial, file)));
        await writeFileAtomically(join(partial, file), files.get(file) as Buffer);
      }
      // As parsed: each step's description derived from its action, whatever the value held.
      await this.writer.writeJson(join(partial, WORKFLOW_FILE), parsed.data, { sync: true });
      if (exists) {
        const old = join(this.root, `.deleting-${randomBytes(4).toString('hex')}`);
        await rename(target, old);
        await rename(partial, target);
        await rm(old, { recursive: true, force: true });
      } else {
        await rename(partial, target);
      }
    } catch (error) {
      await rm(partial, { recursive: true, force: true }).catch(() => undefined);
      return { ok: false, error: { kind: 'io', message: `cannot save workflow "${workflow.name}" in ${this.root}: ${errorMessage(error)}` } };
    }
    await this.sweep();
    if (options.trusted) {
      // The digest of what was written (the store writer may have redacted some of it), read back.
      const trusted = await this.trustWorkflow(workflow.name);
      if (!trusted.ok) return { ok: false, error: { kind: 'io', message: `saved workflow "${workflow.name}", but it is not trusted: ${trusted.error.message}` } };
    }
    return { ok: true, value: { replaced: exists } };
  }

  async delete(name: string): Promise<WorkflowStoreResult<{ name: string }>> {
    const bad = this.checkName(name);
    if (bad) return { ok: false, error: bad };
    const target = this.folder(name);
    const trash = join(this.root, `.deleting-${randomBytes(4).toString('hex')}`);
    try {
      await rename(target, trash);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      return { ok: false, error: missing ? { kind: 'not_found', message: `no workflow "${name}"` } : { kind: 'io', message: `cannot delete workflow "${name}": ${errorMessage(error)}` } };
    }
    await rm(trash, { recursive: true, force: true }).catch(() => undefined);
    // A workflow imported later under this name must not find this one's trust (its digest would differ anyway).
    await this.trust.forget(name);
    return { ok: true, value: { name } };
  }

  /** The workflow and its files in one value (`mnemo workflow export`). */
  async export(name: string): Promise<WorkflowStoreResult<WorkflowExport>> {
    const read = await this.read(name);
    if (!read.ok) return read;
    const files: Record<string, string> = {};
    for (const image of workflowImages(read.value)) {
      const bytes = await this.file(name, image);
      if (!bytes.ok) return bytes;
      files[image.file] = bytes.value.toString('base64');
    }
    return { ok: true, value: { format: WORKFLOW_EXPORT_FORMAT, version: WORKFLOW_VERSION, workflow: read.value, files } };
  }

  /**
   * A file made by `export`, checked whole, then saved (under `rename` when given), untrusted until
   * the user trusts it. Refused, with the reason, when it is not JSON, not a workflow, refers to a
   * file it lacks or holds a file that is not the image it says; an existing name is refused unless
   * `replace`.
   */
  async import(file: WorkflowFile, options: { replace: boolean; rename?: string }): Promise<WorkflowStoreResult<{ workflow: Workflow; replaced: boolean }>> {
    const checked = await checkExport(file);
    if (!checked.ok) return checked;
    const { exported, files } = checked.value;
    const workflow = options.rename !== undefined ? { ...exported.workflow, name: options.rename } : exported.workflow;
    const bad = this.checkName(workflow.name);
    if (bad) return { ok: false, error: bad };
    const saved = await this.save(workflow, files, { replace: options.replace, trusted: false });
    if (!saved.ok) return saved;
    return { ok: true, value: { workflow, replaced: saved.value.replaced } };
  }

  /** Folders left by a save or delete that was cut short. */
  private async sweep(): Promise<void> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    for (const name of names) if (name.startsWith('.deleting-')) await rm(join(this.root, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

const invalid = (message: string): { ok: false; error: StoreError } => ({ ok: false, error: { kind: 'invalid', message } });

/**
 * A file to import: its text (the CLI reads it), or the JSON value a request body carried, read
 * by the same guard (`parseJsonWithin`, `mnemo serve`'s bodies), never turned back into text.
 */
export type WorkflowFile = string | { parsed: unknown };

/** An exported file, validated: the schema, then every image decoded and its size checked. */
export async function checkExport(file: WorkflowFile): Promise<WorkflowStoreResult<{ exported: WorkflowExport; files: Map<string, Buffer> }>> {
  let json: unknown;
  if (typeof file === 'string') {
    const read = parseJsonWithin(file);
    if (!read.ok) return invalid(`not a workflow file: it is not JSON Mnemo takes (${read.message})`);
    json = read.value;
  } else json = file.parsed;
  const format = typeof json === 'object' && json !== null ? (json as { format?: unknown }).format : undefined;
  if (format !== WORKFLOW_EXPORT_FORMAT) return invalid(`not a workflow file: "format" must be "${WORKFLOW_EXPORT_FORMAT}" (made by mnemo workflow export)`);
  const parsed = WorkflowExportSchema.safeParse(json);
  if (!parsed.success) return invalid(`not a valid workflow file: ${describeWorkflowIssues(parsed.error.issues)}`);
  const files = new Map<string, Buffer>();
  for (const image of workflowImages(parsed.data.workflow)) {
    const bytes = Buffer.from(parsed.data.files[image.file] as string, 'base64');
    const size = await (await loadSharp())(bytes)
      .metadata()
      .then(
        (meta) => ({ width: meta.width ?? 0, height: meta.height ?? 0, format: meta.format }),
        () => null,
      );
    if (!size) return invalid(`not a valid workflow file: ${image.file} is not an image`);
    if (size.width !== image.width || size.height !== image.height) {
      return invalid(`not a valid workflow file: ${image.file} is ${size.width}x${size.height}, the workflow says ${image.width}x${image.height}`);
    }
    files.set(image.file, bytes);
  }
  return { ok: true, value: { exported: parsed.data, files } };
}
