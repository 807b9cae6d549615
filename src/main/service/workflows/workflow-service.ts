/**
 * Workflows for the front ends (`mnemo workflow …`, the window's `workflows:*` commands): save a
 * recorded session as a workflow (or only see the parameters it would propose), list, show,
 * delete, export and import them, and read one's images. Running one is a run like any other and
 * goes through the run service (`service.workflowRuns.start`, launched as a replay is), which uses
 * `files` here to read a workflow's screens and patches.
 *
 * Like every store of the data directory, it waits until the directory was made private and
 * writes its text through the redaction policy's writer (service-config.ts).
 *
 * Trust (workflow/trust.ts): what is saved here is trusted; what is imported is not, until the
 * user trusts it (`trust`, after its steps were shown); `list` and `show` say whether each
 * workflow is trusted as it is on disk now, and `service.workflowRuns.start` runs only those.
 *
 * Failures are `ServiceResult` values: `not_found`; `invalid` (a damaged workflow, a bad file to
 * import, a session that makes no workflow, with the reason); `conflict` (the name is taken, on an
 * import that does not replace; a workflow that changed after its steps were shown, on a trust);
 * `record` (it cannot be written).
 */
import { listingOf, workflowImages, type CheckedWorkflow, type ProposedParam, type Workflow, type WorkflowExport, type WorkflowImage, type WorkflowListing } from '../../../shared/workflow';
import type { SessionRecord } from '../../store/session-reader';
import { buildWorkflow, type BuildRequest, type BuildResult } from '../../workflow/build';
import { TesseractReader, type TextReader } from '../../workflow/ocr';
import { WorkflowStore, type StoreError, type WorkflowStoreResult, type WorkflowFile } from '../../workflow/store';
import type { ServiceConfig } from '../service-config';
import type { ServiceErrorKind, ServiceResult } from '../service-result';

export interface WorkflowServiceDeps {
  config: Pick<ServiceConfig, 'dataDir' | 'dataDirReady' | 'storeWriter'>;
  /** One recorded session by id, unique prefix or `last`. */
  session: (ref: string) => Promise<ServiceResult<SessionRecord>>;
  /** Reads the text near targets (default: tesseract, offline). */
  reader?: () => TextReader;
  now?: () => number;
}

export interface SaveWorkflowRequest extends Omit<BuildRequest, 'now'> {
  /** The session: an id, a unique prefix, or `last`. */
  session: string;
}

/** A failure carries the proposals when it came after them (a masked text left unnamed). */
export type SaveResult = ServiceResult<{ workflow: Workflow; proposed: ProposedParam[]; replaced: boolean }> & { proposed?: ProposedParam[] };

const KIND_OF: Readonly<Record<StoreError['kind'], ServiceErrorKind>> = { not_found: 'not_found', invalid: 'invalid', exists: 'conflict', changed: 'conflict', io: 'record' };

/** The store's answer in the services' terms. */
function served<T>(result: WorkflowStoreResult<T>): ServiceResult<T> {
  return result.ok ? result : { ok: false, error: { kind: KIND_OF[result.error.kind], message: result.error.message } };
}

const CONTENT_TYPES: Readonly<Record<WorkflowImage['mime'], string>> = { 'image/png': 'image/png', 'image/jpeg': 'image/jpeg' };

export class WorkflowService {
  readonly store: WorkflowStore;

  constructor(private readonly deps: WorkflowServiceDeps) {
    this.store = new WorkflowStore(deps.config.dataDir, deps.config.storeWriter, deps.now);
  }

  /** The store, once the data directory is private. */
  private async ready(): Promise<WorkflowStore> {
    await this.deps.config.dataDirReady();
    return this.store;
  }

  /** A session made into a workflow in memory (its text read near every target): nothing saved. */
  private async build(request: SaveWorkflowRequest): Promise<ServiceResult<BuildResult>> {
    const session = await this.deps.session(request.session);
    if (!session.ok) return session;
    const reader = this.deps.reader?.() ?? new TesseractReader();
    try {
      return { ok: true, value: await buildWorkflow(session.value, { ...request, now: (this.deps.now ?? Date.now)() }, reader) };
    } finally {
      await reader.close();
    }
  }

  /** Saves a session as a workflow (an existing one of the same name is replaced), trusted: it was made here. */
  async save(request: SaveWorkflowRequest): Promise<SaveResult> {
    const built = await this.build(request);
    if (!built.ok) return built;
    const result = built.value;
    if (!result.ok) return { ok: false, error: { kind: 'invalid', message: result.message }, ...(result.proposed ? { proposed: result.proposed } : {}) };
    const saved = await (await this.ready()).save(result.built.workflow, result.built.files, { replace: true, trusted: true });
    if (!saved.ok) return served(saved);
    return { ok: true, value: { workflow: result.built.workflow, proposed: result.built.proposed, replaced: saved.value.replaced } };
  }

  /** The values typed in a session, as the parameters `save` would propose (secrets masked); nothing saved. */
  async propose(session: string): Promise<ServiceResult<ProposedParam[]>> {
    const built = await this.build({ session, name: 'proposal', params: [] });
    if (!built.ok) return built;
    const result = built.value;
    if (result.ok) return { ok: true, value: result.built.proposed };
    return result.proposed ? { ok: true, value: result.proposed } : { ok: false, error: { kind: 'invalid', message: result.message } };
  }

  /** Every workflow with whether it is trusted, and the damaged ones apart with why. */
  async list(): Promise<{ workflows: CheckedWorkflow[]; damaged: Array<{ name: string; message: string }> }> {
    return (await this.ready()).list();
  }

  /** The list as `mnemo workflow list --json` prints it. */
  async listings(): Promise<{ workflows: WorkflowListing[]; damaged: Array<{ name: string; message: string }> }> {
    const { workflows, damaged } = await this.list();
    return { workflows: workflows.map(listingOf), damaged };
  }

  /** One workflow, with whether it is trusted as it is on disk now. */
  async show(name: string): Promise<ServiceResult<CheckedWorkflow>> {
    return served(await (await this.ready()).readChecked(name));
  }

  /**
   * The user trusts the workflow, as it is now, to run: `digest` (from `show`) names what they were
   * shown, and a workflow changed since is a `conflict`, left untrusted.
   */
  async trust(name: string, digest?: string): Promise<ServiceResult<CheckedWorkflow>> {
    return served(await (await this.ready()).trustWorkflow(name, digest));
  }

  async delete(name: string): Promise<ServiceResult<{ name: string }>> {
    return served(await (await this.ready()).delete(name));
  }

  async export(name: string): Promise<ServiceResult<WorkflowExport>> {
    return served(await (await this.ready()).export(name));
  }

  /** A file made by `export` (its text, or the JSON a request carried), checked whole, saved untrusted; a bad one is refused with the reason and changes nothing. */
  async import(file: WorkflowFile, options: { replace: boolean; rename?: string }): Promise<ServiceResult<{ workflow: Workflow; replaced: boolean }>> {
    return served(await (await this.ready()).import(file, options));
  }

  /** One of the images a workflow refers to (`anchors/…`, `screens/…`); any other path is not found. */
  async image(name: string, file: string): Promise<ServiceResult<{ data: Buffer; contentType: string }>> {
    const workflow = served(await (await this.ready()).read(name));
    if (!workflow.ok) return workflow;
    const image = workflowImages(workflow.value).find((candidate) => candidate.file === file);
    if (!image) return { ok: false, error: { kind: 'not_found', message: `workflow "${name}" has no file ${file}` } };
    const read = served(await this.store.file(name, image));
    return read.ok ? { ok: true, value: { data: read.value, contentType: CONTENT_TYPES[image.mime] } } : read;
  }

  /** Reads a workflow's screens and patches, for its run. */
  files(name: string): (image: WorkflowImage) => Promise<Buffer | null> {
    return async (image) => {
      const read = await this.store.file(name, image);
      return read.ok ? read.value : null;
    };
  }
}
