/**
 * The working memory agent (seed 002) with the real model client against the scripted server,
 * and its managers on their real storage: every status string, the degradation paths, a custom
 * prompt, and memory carried from one interaction to the next.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WORKING_MEMORY_PROMPT,
  FileMemoryManager,
  InMemoryManager,
  RedisMemoryManager,
  WorkingMemoryAgent,
  type WorkingMemoryManager,
} from '../../../src/main/memory/working';
import { openMemoryCipher } from '../../../src/main/memory/encryption';
import { useMemoryStorage } from '../../fixtures/memory-storage';
import { startRedis } from '../../fixtures/redis-server';
import { memoryModel, serve, systemText, userText } from './helpers';

const storage = useMemoryStorage('working', { redis: true });

describe('status strings', () => {
  it('success: the model is given the memory so far, the history and the message, and its reply is stored', async () => {
    const server = await serve([{ text: 'The user wants a laptop.' }, { text: 'The user wants a laptop and asked about warranty.' }]);
    const manager = new InMemoryManager();
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: manager, chatHistoryClient: { get: async () => 'user: hello' } });
    expect(await agent.process({ message: 'User wants to buy a laptop', metadata: { conversation_id: 'integration_test' } })).toBe('success');
    expect(await agent.process({ message: 'User asked about warranty options', metadata: { conversation_id: 'integration_test' } })).toBe('success');
    const [record] = await manager.retrieve({ conversation_id: 'integration_test' });
    expect(record?.working_memory).toBe('The user wants a laptop and asked about warranty.');
    expect(systemText(server.requests[0] as never)).toBe(DEFAULT_WORKING_MEMORY_PROMPT);
    const first = userText(server.requests[0] as never);
    expect(first).toContain('(none yet)');
    expect(first).toContain('user: hello');
    expect(first).toContain('User wants to buy a laptop');
    expect(userText(server.requests[1] as never)).toContain('The user wants a laptop.');
  });

  it('error: no conversation_id provided (and the model is not called)', async () => {
    const server = await serve([]);
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: new InMemoryManager() });
    expect(await agent.process({ message: 'test' })).toBe('error: no conversation_id provided');
    expect(await agent.process({ message: 'test', metadata: { conversation_id: '' } })).toBe('error: no conversation_id provided');
    expect(server.requests).toHaveLength(0);
  });

  it('error: empty memory response (nothing stored)', async () => {
    const server = await serve([{ text: '   ' }]);
    const manager = new InMemoryManager();
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: manager });
    expect(await agent.process({ message: 'test', metadata: { conversation_id: 'c1' } })).toBe('error: empty memory response');
    expect(await manager.retrieve({ conversation_id: 'c1' })).toEqual([]);
  });

  it('error: storage failed - <details>, from a manager that cannot write', async () => {
    const server = await serve([{ text: 'Updated memory' }]);
    const dir = await storage.tempDir();
    // The working memory folder is a file: every store fails.
    await mkdir(join(dir, 'memory'), { recursive: true });
    await writeFile(join(dir, 'memory', 'working'), 'not a folder');
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: new FileMemoryManager(dir) });
    const status = await agent.process({ message: 'test', metadata: { conversation_id: 'test' } });
    expect(status).toMatch(/^error: storage failed - .*(ENOTDIR|EEXIST|not a directory)/);
  });

  it('error: storage failed - when Redis is gone', async () => {
    const server = await serve([{ text: 'Updated memory' }]);
    const own = await startRedis();
    const connection = await storage.connect({ url: own.url });
    await own.stop();
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: new RedisMemoryManager(connection) });
    const status = await agent.process({ message: 'test', metadata: { conversation_id: 'test' } });
    expect(status).toMatch(/^error: storage failed - Redis at redis:\/\/127\.0\.0\.1:\d+ did not take the change/);
  });

  it('error: <exception message>, from a model that fails', async () => {
    const server = await serve([{ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } }]);
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: new InMemoryManager() });
    const status = await agent.process({ message: 'test', metadata: { conversation_id: 'test' } });
    expect(status.startsWith('error: ')).toBe(true);
    expect(status).toContain('Incorrect API key');
    expect(status.startsWith('error: storage failed')).toBe(false);
  });
});

describe('degradation and options', () => {
  it('memory that cannot be read counts as none; no history means memory only; no manager still succeeds', async () => {
    const server = await serve([{ text: 'Fresh memory' }, { text: 'Unstored memory' }]);
    const broken: WorkingMemoryManager = {
      location: 'broken',
      retrieve: async () => {
        throw new Error('disk on fire');
      },
      store: async () => undefined,
      delete: async () => undefined,
      list: async () => [],
    };
    const warnings: string[] = [];
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: broken, log: (level, message) => level === 'warning' && warnings.push(message) });
    expect(await agent.process({ message: 'hi', metadata: { conversation_id: 'c' } })).toBe('success');
    expect(userText(server.requests[0] as never)).toContain('(none yet)');
    expect(userText(server.requests[0] as never)).toContain('(no earlier history)');
    expect(warnings.join('\n')).toContain('disk on fire');
    const bare = new WorkingMemoryAgent({ llmClient: memoryModel(server.url) });
    expect(await bare.process({ message: 'hi', metadata: { conversation_id: 'c' } })).toBe('success');
  });

  it('a custom system prompt replaces the default', async () => {
    const server = await serve([{ text: 'Customer prefers email.' }]);
    const agent = new WorkingMemoryAgent({ llmClient: memoryModel(server.url), memoryManager: new InMemoryManager(), systemPrompt: 'You are a specialised memory manager for support.' });
    expect(await agent.process({ message: 'prefers email', metadata: { conversation_id: 'c' } })).toBe('success');
    expect(systemText(server.requests[0] as never)).toBe('You are a specialised memory manager for support.');
  });
});

describe('managers', () => {
  it('file (encrypted with a key), and Redis shared by two connections', async () => {
    const dir = await storage.tempDir();
    const cipher = await openMemoryCipher(join(dir, 'memory'), { secret: 'k', origin: 'test' });
    if (!cipher.ok) throw new Error(cipher.message);
    const file = new FileMemoryManager(dir, cipher.cipher);
    await file.store({ conversation_id: 'conv-1', working_memory: 'The user likes tea', metadata: { conversation_id: 'conv-1' } });
    expect((await file.retrieve({ conversation_id: 'conv-1' }))[0]?.working_memory).toBe('The user likes tea');
    expect(await file.list()).toEqual(['conv-1']);
    await expect(new FileMemoryManager(dir).retrieve({ conversation_id: 'conv-1' })).rejects.toThrow(/encrypted/);

    const organisation = `wm-shared-${process.pid}`;
    const a = new RedisMemoryManager(await storage.connect({ organisation }));
    await a.store({ conversation_id: 'conv-2', working_memory: 'Shared' });
    const b = new RedisMemoryManager(await storage.connect({ organisation }));
    expect((await b.retrieve({ conversation_id: 'conv-2' }))[0]?.working_memory).toBe('Shared');
    expect(await b.list()).toEqual(['conv-2']);
    await b.delete({ conversation_id: 'conv-2' });
    expect(await a.retrieve({ conversation_id: 'conv-2' })).toEqual([]);
  });
});
