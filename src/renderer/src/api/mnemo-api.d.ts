/** `window.mnemo`, as the preload exposes it: typed from the one contract. */
import type { MnemoApi } from '../../shared/contract';

declare global {
  interface Window {
    /** Absent when the renderer is opened outside the app (a plain browser). */
    readonly mnemo?: MnemoApi;
  }
}

export {};
