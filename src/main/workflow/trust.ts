/**
 * Which workflows may run. A workflow is code that drives the desktop, and a file can be edited
 * (an export passed around, workflow.json changed by hand), so a workflow runs only while the user
 * trusts exactly the steps it has:
 *
 * - the digest (`workflowDigest`): sha256 over everything that decides what runs — the workflow
 *   as read (actions, parameters, anchors, images' sizes, the task the model is told) with the
 *   derived step descriptions left out, and the bytes of every file it refers to (a patch picks
 *   the target);
 * - the trust record: `<data-dir>/workflow-trust/<name>.json` holding the digest the user trusted,
 *   apart from the workflow's folder, so neither an imported file nor an edit of that folder
 *   brings one along. Written owner-only and whole (disk/files.ts).
 *
 * A workflow is trusted when its record's digest is the digest of what is on disk now: saving it
 * on this machine writes the record, `mnemo workflow trust` (or the window's button) writes it
 * after the steps were shown, importing one removes it, and any edit makes the two differ.
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { workflowImages, type Workflow, type WorkflowImage } from '../../shared/workflow';
import { errorMessage, makePrivateDir, writeJsonAtomically } from '../disk/files';

export const TRUST_DIR = 'workflow-trust';

const TrustRecordSchema = z.object({
  format: z.literal('mnemo-workflow-trust'),
  name: z.string(),
  digest: z.string(),
  trustedAt: z.number(),
});

/** JSON with every object's keys sorted: the same value gives the same text, whatever order it was read in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * The digest of a workflow and its files (`read` gives a file's bytes, null when it cannot be
 * read: the digest then differs from any trusted one). Step descriptions are left out: they are
 * derived from the rest, and their wording may change between versions.
 */
export async function workflowDigest(workflow: Workflow, read: (image: WorkflowImage) => Promise<Buffer | null>): Promise<string> {
  const steps = workflow.steps.map(({ description: _derived, ...step }) => step);
  const files: Array<[string, string | null]> = [];
  for (const image of workflowImages(workflow).sort((a, b) => (a.file < b.file ? -1 : 1))) {
    const bytes = await read(image);
    files.push([image.file, bytes ? sha256(bytes) : null]);
  }
  return `sha256:${sha256(canonicalJson({ workflow: { ...workflow, steps }, files }))}`;
}

/** The trust records of a data directory's workflows. */
export class WorkflowTrust {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, TRUST_DIR);
  }

  private file(name: string): string {
    return join(this.root, `${name}.json`);
  }

  /** The digest the user trusted for `name`, or null (none, or a record that does not read). */
  async trusted(name: string): Promise<string | null> {
    const text = await readFile(this.file(name), 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const record = TrustRecordSchema.safeParse(JSON.parse(text));
      return record.success && record.data.name === name ? record.data.digest : null;
    } catch {
      return null;
    }
  }

  /** Trusts `digest` for `name` from now on; an error in words when it cannot be written. */
  async record(name: string, digest: string, now: number): Promise<string | null> {
    try {
      await makePrivateDir(this.root);
      await writeJsonAtomically(this.file(name), { format: 'mnemo-workflow-trust', name, digest, trustedAt: now } satisfies z.input<typeof TrustRecordSchema>, { sync: true });
      return null;
    } catch (error) {
      return `cannot record the trust of workflow "${name}" in ${this.root}: ${errorMessage(error)}`;
    }
  }

  /** `name` is trusted no more (imported over, deleted); an error in words when the record stays. */
  async forget(name: string): Promise<string | null> {
    try {
      await rm(this.file(name), { force: true });
      return null;
    } catch (error) {
      return `cannot remove the trust of workflow "${name}" in ${this.root}: ${errorMessage(error)}`;
    }
  }
}
