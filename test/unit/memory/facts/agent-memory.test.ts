/**
 * The pieces of the facts feature that need no storage of their own: the prompt within its
 * budget (search hits first, one fact per concept, the more specific subject), auto-detection's
 * reading of replies, scope parsing, and Redis saves racing on one fact from two connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentMemory,
  defaultAgentMemoryConfig,
  FactType,
  findJsonArray,
  formatScope,
  InMemoryFactStore,
  MemoryScope,
  openRedisFactStore,
  parseDetectedFacts,
  parseScope,
} from '../../../../src/main/memory/facts';
import { openRedis } from '../../../../src/main/memory/redis';
import { RedisBlackboardStore } from '../../../../src/main/memory/redis-stores';
import { Blackboard } from '../../../../src/main/memory/blackboard';
import { startRedis, type TestRedis } from '../../../fixtures/redis-server';

const profile = { agentName: 'mnemo@box', featureName: 'desktop', organizationName: 'acme', productName: 'mnemo' };

describe('the prompt of a task', () => {
  it('puts the facts the task finds first, one per concept, the more specific subject winning, within the budget', async () => {
    const store = new InMemoryFactStore();
    const memory = new AgentMemory({ ...defaultAgentMemoryConfig(profile), memoryProvider: store, promptBudgetTokens: 60 }, { now: () => 5000 });
    await memory.save({ subject: 'everything', keyword: 'browser', description: 'Default browser', values: ['Chrome'] });
    await memory.save({ subject: 'user', keyword: 'browser', description: 'The browser the user likes', values: ['Firefox'] });
    await memory.save({ subject: 'user', keyword: 'spreadsheet-app', description: 'Spreadsheets are edited in', values: ['LibreOffice Calc'] });
    for (let i = 0; i < 30; i += 1) await memory.save({ subject: 'user', keyword: `filler-${i}`, description: 'unrelated filler fact', values: ['x'.repeat(40)] });
    const loaded = await memory.loadForTask('Open the quarterly spreadsheet in the browser');
    const lines = loaded.text.split('\n');
    expect(lines[0]).toBe('[Facts remembered from earlier tasks:]');
    expect(lines.slice(1, 3).sort()).toEqual(['- [user] browser (The browser the user likes): Firefox', '- [user] spreadsheet-app (Spreadsheets are edited in): LibreOffice Calc'].sort());
    expect(loaded.text).not.toContain('Chrome');
    expect(loaded.tokens).toBeLessThanOrEqual(60);
    expect(Math.ceil(loaded.text.length / 4)).toBeLessThanOrEqual(60 + lines.length);
    expect(loaded.facts.length).toBeLessThan(10);
  });

  it('saves machine facts in the agent scope and others in the product scope', async () => {
    const memory = new AgentMemory({ ...defaultAgentMemoryConfig(profile), memoryProvider: new InMemoryFactStore() });
    expect((await memory.save({ subject: 'machine', keyword: 'os', description: 'OS', values: ['Debian'] })).fact.scope).toBe('agent:mnemo@box');
    expect((await memory.save({ subject: 'user', keyword: 'name', description: 'Name', values: ['Ada'] })).fact.scope).toBe('product:mnemo');
    expect(memory.scopes()).toEqual(['agent:mnemo@box', 'feature:desktop', 'product:mnemo', 'cross-product']);
  });
});

describe('auto-detection replies', () => {
  it('reads the array with or without a fence, with prose around it; skips elements that are not facts', () => {
    expect(findJsonArray('[]')).toEqual([]);
    expect(findJsonArray('Sure! ```json\n[{"a": 1}]\n``` done')).toEqual([{ a: 1 }]);
    expect(findJsonArray('The facts are [{"a": "x]"}] and that is it.')).toEqual([{ a: 'x]' }]);
    expect(findJsonArray('no array here')).toBeNull();
    const parsed = parseDetectedFacts(
      '[{"subject":"User","keyword":"name","description":"The name","value":"Ada"},{"subject":"machine","keyword":"shells","values":["bash","zsh"]},{"keyword":"x","value":"y"},{"subject":"user","keyword":"","value":"y"},{"subject":"user","keyword":"k"}]',
      42,
    );
    expect(parsed).toEqual({
      ok: true,
      facts: [
        { subject: 'user', fact: { concept: { keyword: 'name', description: 'The name', factType: FactType.SINGLE }, value: 'Ada', timestamp: 42 } },
        { subject: 'machine', fact: { concept: { keyword: 'shells', description: 'shells', factType: FactType.MULTIPLE }, values: ['bash', 'zsh'], timestamp: 42 } },
      ],
      skipped: ['element 3: no subject', 'element 4: no keyword', 'element 5: no value'],
    });
    expect(parseDetectedFacts('{"facts": "none"}', 1)).toEqual({ ok: false, error: 'the reply holds no JSON array of facts' });
  });

  it('scopes are written agent:<name>, feature:<id>, product:<name>, cross-product', () => {
    for (const scope of [MemoryScope.Agent('a'), MemoryScope.Feature('f-1'), MemoryScope.Product('p'), MemoryScope.CrossProduct]) {
      expect(parseScope(formatScope(scope))).toEqual({ ok: true, value: scope });
    }
    for (const bad of ['', 'agent', 'agent:', 'product: x y', 'crossproduct', 'user:me']) expect(parseScope(bad).ok).toBe(false);
  });
});

describe('Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  async function connection(organisation: string) {
    const opened = await openRedis(redis.url, { organisation });
    if (!opened.ok) throw new Error(opened.message);
    return opened.connection;
  }

  it('saves racing on one SINGLE fact from two connections keep every value: the newest current, the rest history', async () => {
    const [ca, cb] = [await connection('race'), await connection('race')];
    const [a, b] = [await openRedisFactStore({ connection: ca }), await openRedisFactStore({ connection: cb })];
    const fact = (value: string, timestamp: number) => ({ concept: { keyword: 'colour', description: 'Favourite colour', factType: FactType.SINGLE }, value, timestamp });
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).save(fact(`colour-${i}`, 1000 + i), 'user', 'product:mnemo')));
    const [stored] = await a.list();
    expect(stored?.values).toEqual(['colour-19']);
    expect(stored?.history.map((version) => version.values[0]).sort()).toEqual(Array.from({ length: 19 }, (_, i) => `colour-${i}`).sort());
    expect(await b.list()).toEqual(await a.list());
    await ca.close();
    await cb.close();
  });

  it('the blackboard in Redis: changes from two stores are both kept, also across a compaction', async () => {
    const [ca, cb] = [await connection('board'), await connection('board')];
    const first = new Blackboard({}, { persistence: new RedisBlackboardStore(ca, { rewriteEvery: 3 }) });
    const second = new Blackboard({}, { persistence: new RedisBlackboardStore(cb, { rewriteEvery: 3 }) });
    for (let i = 0; i < 5; i += 1) {
      first.addRequests({ request: `from A ${i}` });
      second.addRequests({ request: `from B ${i}` });
    }
    expect(await first.flush()).toEqual({ ok: true });
    expect(await second.flush()).toEqual({ ok: true });
    const loaded = await new RedisBlackboardStore(ca).load();
    expect(loaded.blackboard.requests.map((item) => item.request).sort()).toEqual([...Array.from({ length: 5 }, (_, i) => `from A ${i}`), ...Array.from({ length: 5 }, (_, i) => `from B ${i}`)].sort());
    expect(await ca.client.llen(`${ca.keyPrefix}blackboard:log`)).toBeLessThan(10);
    await ca.close();
    await cb.close();
  });
});
