/**
 * The main window. The renderer gets no Node, runs sandboxed and isolated from the preload, and
 * talks to us only through the contract functions the preload exposes.
 */
import { BrowserWindow } from 'electron';
import type { RendererLocation } from './renderer-location';

export function createMainWindow(options: { preload: string; renderer: RendererLocation }): BrowserWindow {
  const window = new BrowserWindow({
    title: 'Mnemo',
    width: 1100,
    height: 760,
    minWidth: 640,
    minHeight: 480,
    // Shown once painted, so the user never sees an empty frame.
    show: false,
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  if (options.renderer.kind === 'file') void window.loadFile(options.renderer.file);
  else void window.loadURL(options.renderer.url);
  return window;
}
