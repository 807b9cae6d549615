/**
 * Which saved workflows a task is offered: a ranked search (BM25, the facts' search index) over
 * the trusted workflows' names and descriptions; the matches become the offer's lines (workflow/in-run.ts).
 */
import type { Workflow } from '../../../shared/workflow';
import { FactSearchIndex } from '../../memory/facts/search-index';
import { workflowOffer, type WorkflowCatalog } from '../../workflow/in-run';

/** At most this many workflows are offered for a task. */
const OFFERED = 3;

/** The workflows offered for `task`, best match first (none when no word of it matches). */
export function matchingWorkflows(task: string, workflows: readonly Workflow[], limit = OFFERED): Workflow[] {
  const index = new FactSearchIndex();
  for (const workflow of workflows) index.set(workflow.name, { keyword: workflow.name.replace(/[-_.]+/g, ' '), description: workflow.description, values: [] });
  const byName = new Map(workflows.map((workflow) => [workflow.name, workflow]));
  return index.search(task, { limit }).flatMap((hit) => (hit.score > 0 && byName.has(hit.id) ? [byName.get(hit.id) as Workflow] : []));
}

/** The offer for `task` among the catalog's trusted workflows (null: none matches, or none is saved, readable and trusted). */
export async function offerFor(catalog: WorkflowCatalog, task: string): Promise<string | null> {
  const { workflows } = await catalog.list().catch(() => ({ workflows: [] }));
  // A workflow the user has not trusted would be refused if run: it is not offered either.
  return workflowOffer(matchingWorkflows(task, workflows.flatMap((entry) => (entry.trusted ? [entry.workflow] : []))));
}
