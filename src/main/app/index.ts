/** The desktop app shell: the only folder that imports `electron` (besides the preload). */
export { startApp, type StartOptions } from './bootstrap';
