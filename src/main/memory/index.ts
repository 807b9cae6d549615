/**
 * Memory: the step trace (MemoryItemList of MemoryItems, UFO3's Memory), the three layers and screenshot pruning, the
 * blackboard, and the tiered conversation memory; every change reported as a `MemoryChange`.
 * Build the parts where the object graph is composed (app, CLI) and pass them in.
 */
export * from './events';
export * from './trace';
export * from './text-model';
export * from './layers';
export * from './pruning';
export * from './blackboard';
export * from './tiered';
export * from './memory-files';
