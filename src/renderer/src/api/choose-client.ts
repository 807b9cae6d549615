/** The transport is chosen once, at start: the preload's bridge when present, else HTTP. */
import type { MnemoClient } from './client';
import { createHttpClient } from './http-client';
import { createIpcClient } from './ipc-client';

export function chooseClient(): MnemoClient {
  return window.mnemo ? createIpcClient(window.mnemo) : createHttpClient();
}
