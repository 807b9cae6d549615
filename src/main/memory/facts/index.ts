/** Facts (seed 001, Koog's AgentMemory): the model, the providers, search, extraction. */
export * from './model';
export * from './provider';
export * from './search-index';
export * from './table';
export * from './file-provider';
export * from './redis-provider';
export * from './extraction';
export * from './agent-memory';
