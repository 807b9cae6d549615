/**
 * Memory: the step trace (MemoryItemList of MemoryItems, UFO3's Memory), the three layers and screenshot pruning, the
 * blackboard, and the tiered conversation memory; every change reported as a `MemoryChange`.
 * Facts (seed 001) are in ./facts, working memory (seed 002) in ./working, the Redis connection
 * and stores in ./redis and ./redis-stores, encryption at rest in ./encryption.
 * Build the parts where the object graph is composed (the run service) and pass them in.
 */
export * from './events';
export * from './trace';
export * from './text-model';
export * from './text-model-factory';
export * from './text-replies';
export * from './layers';
export * from './pruning';
export * from './blackboard';
export * from './tiered';
export * from './memory-files';
