/**
 * The long-lived facts (Koog's model: a subject, a scope, a keyword with its description, one value
 * or several): `search_facts {query, limit?}` ranks them (BM25) as `mnemo facts search` does, and
 * `save_fact {subject, scope, keyword, description, values}` saves one as a person would: a new
 * value of a single fact supersedes the old, which stays in its history. The same store runs use.
 */
import { z } from 'zod';
import { FactJsonSchema } from '../../../shared/app-api';
import type { MemoryService } from '../../service/memory/memory-service';
import type { ToolCall } from '../connection';
import { defineTool, type ToolAnswer } from '../tool';

async function withMemory<T>(call: ToolCall, work: (memory: MemoryService) => Promise<ToolAnswer<T>>): Promise<ToolAnswer<T>> {
  const memory = call.services.service.config.redacted(await call.services.service.memoryHost.memoryService());
  return memory.ok ? work(memory.value) : { ok: false, message: `${memory.error.kind}: ${memory.error.message}` };
}

export const searchFactsTool = defineTool({
  name: 'search_facts',
  title: 'Search facts',
  description: 'Search the facts Mnemo remembers (about the user, this machine, products), best match first, each with its score.',
  input: {
    query: z.string().trim().min(1, 'the query is empty').describe('words to look for in keywords, descriptions and values'),
    limit: z.number().int().min(1).max(200).optional().describe('at most this many (default 20)'),
  },
  output: { facts: z.array(FactJsonSchema) },
  readOnly: true,
  destructive: false,
  openWorld: false,
  call: (args, call) =>
    withMemory(call, async (memory) => {
      const found = await memory.searchFacts(args.query, args.limit !== undefined ? { limit: args.limit } : {});
      return found.ok ? { ok: true, value: { facts: found.value } } : { ok: false, message: found.error.message };
    }),
});

export const saveFactTool = defineTool({
  name: 'save_fact',
  title: 'Save a fact',
  description:
    'Save a lasting fact for Mnemo and its runs. Its identity is (subject, scope, keyword): saving it again with a new value supersedes ' +
    'a single fact (the old value stays in its history); several values make a multiple fact.',
  input: {
    subject: z.string().min(1).describe('who or what it is about: "user", "machine", "everything", or a subject of the settings'),
    scope: z.string().min(1).describe('"agent:<name>", "feature:<id>", "product:<name>" or "cross-product"'),
    keyword: z.string().trim().min(1, 'the keyword is empty').describe('a short name, e.g. "preferred-editor"'),
    description: z.string().describe('what the fact is, in a sentence (may be empty)'),
    values: z.array(z.string()).min(1, 'a fact needs a value').describe('one value, or several for a multiple fact'),
  },
  output: { fact: FactJsonSchema },
  readOnly: false,
  destructive: false,
  openWorld: false,
  call: (args, call) =>
    withMemory(call, async (memory) => {
      const saved = await memory.addFact(args);
      return saved.ok ? { ok: true, value: { fact: saved.value } } : { ok: false, message: saved.error.message };
    }),
});
