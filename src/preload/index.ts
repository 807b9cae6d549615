/**
 * The preload: exposes `window.mnemo`, one function per contract command plus `onEvent` and
 * `onBatchChange`.
 *
 * The functions are generated from the contract, so a new command needs no edit here. ipcRenderer
 * itself never crosses the bridge, nor does the IpcRendererEvent (its `sender` IS ipcRenderer).
 * Runs sandboxed: it is bundled into one CommonJS file and may require only `electron`.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  AGENT_EVENT_CHANNEL,
  BATCH_CHANGE_CHANNEL,
  type BatchChangePayload,
  commandNames,
  err,
  type AgentEventPayload,
  type CommandName,
  type MnemoApi,
  type Result,
} from '../shared/contract';

function invoker(name: CommandName) {
  return async (request: unknown): Promise<Result<unknown>> => {
    try {
      return (await ipcRenderer.invoke(name, request)) as Result<unknown>;
    } catch (error) {
      // Only reachable when no handler is registered for `name`: handlers answer with values.
      return err('unavailable', `${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

function onEvent(listener: (event: AgentEventPayload) => void): () => void {
  const forward = (_event: IpcRendererEvent, payload: AgentEventPayload) => listener(payload);
  ipcRenderer.on(AGENT_EVENT_CHANNEL, forward);
  return () => {
    ipcRenderer.removeListener(AGENT_EVENT_CHANNEL, forward);
  };
}

function onBatchChange(listener: (change: BatchChangePayload) => void): () => void {
  const forward = (_event: IpcRendererEvent, payload: BatchChangePayload) => listener(payload);
  ipcRenderer.on(BATCH_CHANGE_CHANNEL, forward);
  return () => {
    ipcRenderer.removeListener(BATCH_CHANGE_CHANNEL, forward);
  };
}

// The cast is where the generated map meets its mapped type; the keys come from the same object.
const api = {
  ...Object.fromEntries(commandNames.map((name) => [name, invoker(name)])),
  onEvent,
  onBatchChange,
} as unknown as MnemoApi;

contextBridge.exposeInMainWorld('mnemo', api);
