/**
 * Composes the desktop app's object graph (the one place besides the CLI that does): security
 * policy, command handlers and their collaborators, IPC registration, and the window factory.
 * Call after `app.whenReady()`: sessions and the screen module exist only then.
 */
import { app, ipcMain, screen, session, type BrowserWindow } from 'electron';
import { join } from 'node:path';
import { contentSecurityPolicy } from './csp';
import { createDispatcher } from './dispatch';
import { createDisplayLister } from './displays';
import { createHandlers } from './handlers';
import { registerIpc } from './ipc';
import { devServerOrigin, isRendererUrl, resolveRendererLocation } from './renderer-location';
import { hardenSession } from './security';
import { createMainWindow } from './window';

export interface ComposedApp {
  openMainWindow(): BrowserWindow;
}

/** `outDir` is the build output (out/): main/, preload/ and renderer/ sit in it side by side. */
export function composeApp(outDir: string): ComposedApp {
  const renderer = resolveRendererLocation({
    outDir,
    isPackaged: app.isPackaged,
    devServerUrl: process.env.ELECTRON_RENDERER_URL,
  });
  hardenSession(session.defaultSession, contentSecurityPolicy({ devServerOrigin: devServerOrigin(renderer) }));

  const handlers = createHandlers({
    appInfo: { version: app.getVersion(), platform: process.platform },
    listDisplays: createDisplayLister({ primarySize: async () => screen.getPrimaryDisplay().size }),
  });
  registerIpc(ipcMain, createDispatcher(handlers, (url) => isRendererUrl(renderer, url)));

  // Sandboxed preloads must be CommonJS, hence .cjs (see electron.vite.config.ts).
  const preload = join(outDir, 'preload', 'index.cjs');
  return { openMainWindow: () => createMainWindow({ preload, renderer }) };
}
