/**
 * Wires the dispatcher to Electron: one `ipcMain.handle` per contract command.
 */
import { type IpcMain, type IpcMainInvokeEvent } from 'electron';
import { commandNames } from '../../shared/contract';
import type { Dispatch, Sender } from './dispatch';

function senderOf(event: IpcMainInvokeEvent): Sender {
  const frame = event.senderFrame;
  return { url: frame?.url ?? null, isMainFrame: frame !== null && frame.parent === null };
}

/** Registers every command; returns the function that removes them again. */
export function registerIpc(ipcMain: IpcMain, dispatch: Dispatch): () => void {
  for (const name of commandNames) {
    ipcMain.handle(name, (event, rawRequest: unknown) => dispatch(name, senderOf(event), rawRequest));
  }
  return () => {
    for (const name of commandNames) ipcMain.removeHandler(name);
  };
}
