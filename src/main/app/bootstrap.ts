/**
 * App lifecycle: one instance, a composed graph once Electron is ready, one main window.
 */
import { app, type BrowserWindow } from 'electron';
import { dirname } from 'node:path';
import { composeApp, registerSessionFileScheme, type ComposedApp } from './compose';
import { denyNavigationAndPopups } from './security';

export interface StartOptions {
  /** Directory of the bundled main entry (out/main); passed in because only the entry knows it. */
  mainDir: string;
}

export function startApp(options: StartOptions): void {
  // A second copy would fight the first over the mouse and keyboard: focus the first and quit.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  // Before any window exists, so no webContents escapes the policy (enableSandbox must precede 'ready').
  app.enableSandbox();
  denyNavigationAndPopups(app);
  registerSessionFileScheme();

  let mainWindow: BrowserWindow | null = null;
  const focusMainWindow = () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  };
  app.on('second-instance', focusMainWindow);
  app.on('window-all-closed', () => {
    // macOS keeps apps alive without windows; 'activate' brings one back.
    if (process.platform !== 'darwin') app.quit();
  });

  let composed: ComposedApp | null = null;
  let quitting = false;
  app.on('before-quit', (event) => {
    // A run in progress is stopped and recorded as aborted before the process ends.
    if (!composed || quitting) return;
    event.preventDefault();
    quitting = true;
    void composed.shutdown().finally(() => app.quit());
  });

  app
    .whenReady()
    .then(async () => {
      composed = await composeApp(dirname(options.mainDir));
      const shell = composed;
      const open = () => {
        mainWindow = shell.openMainWindow();
        mainWindow.on('closed', () => {
          mainWindow = null;
        });
      };
      open();
      app.on('activate', () => {
        if (mainWindow === null) open();
      });
    })
    .catch((error: unknown) => {
      // Composition failing is a bug; say so and leave rather than sit there without a window.
      console.error('Mnemo failed to start:', error);
      app.exit(1);
    });
}
