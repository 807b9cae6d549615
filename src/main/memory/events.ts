/** The memory change and snapshot types live in src/shared/memory.ts (events carry them). */
export * from '../../shared/memory';
