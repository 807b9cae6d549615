/** Working memory per conversation (seed 002, Arshai's WorkingMemoryAgent) and where it is kept. */
export * from './managers';
export * from './agent';
