/**
 * Composes the desktop app: security policy, the run service (over the same data directory and
 * config.json as the CLI), the IPC handlers over the app backend, the `mnemo-file:` protocol for
 * screenshots, the run chrome (status widget, tray, stop shortcut), and the window factory.
 * Call after `app.whenReady()`: sessions, the screen and the keychain exist only then.
 */
import { app, BrowserWindow, dialog, ipcMain, protocol, screen, session } from 'electron';
import { join } from 'node:path';
import { BATCH_CHANGE_CHANNEL, err, LIVE_VIEW_SCHEME, ok, SESSION_FILE_SCHEME } from '../../shared/contract';
import { contentSecurityPolicy } from '../../shared/csp';
import { appMemoryKey } from './memory-key';
import { AppBackend } from '../service/front-ends/app-backend';
import { openDesktopOperator } from '../service/desktops/desktop';
import { RunService } from '../service/run-service';
import { openRunElements } from '../service/runs/run-elements';
import { SessionFiles } from '../service/sessions/session-files';
import { writeUserFile } from '../disk/user-file';
import { LIVE_CONTENT_TYPE, liveParts } from '../service/runs/live-stream';
import { configPathOf, defaultDataDir, loadConfig } from '../settings/settings';
import { createDispatcher } from './dispatch';
import { createDisplayLister } from './displays';
import { createHandlers } from './handlers';
import { registerIpc } from './ipc';
import { keychainKeyStore } from './key-store';
import { fileLogger } from './log-file';
import { devServerOrigin, isRendererUrl, resolveRendererLocation } from './renderer-location';
import { RunChrome } from './run-chrome';
import { hardenSession } from './security';
import { createMainWindow } from './window';

export interface ComposedApp {
  openMainWindow(): BrowserWindow;
  /** Stops a run in progress (it ends `aborted`) before the app quits. */
  shutdown(): Promise<void>;
}

/** The `mnemo-file:` and `mnemo-live:` schemes behave like https for fetch and images (the live view streams); register before 'ready'. */
export function registerSessionFileScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: SESSION_FILE_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
    { scheme: LIVE_VIEW_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } },
  ]);
}

/** `outDir` is the build output (out/): main/, preload/ and renderer/ sit in it side by side. */
export async function composeApp(outDir: string): Promise<ComposedApp> {
  const renderer = resolveRendererLocation({
    outDir,
    isPackaged: app.isPackaged,
    devServerUrl: process.env.ELECTRON_RENDERER_URL,
  });
  hardenSession(session.defaultSession, contentSecurityPolicy({ devServerOrigin: devServerOrigin(renderer) }));
  const log = fileLogger(join(app.getPath('userData'), 'mnemo.log'));

  // The same data directory and settings file as the CLI, so both see the same sessions and settings.
  const loaded = await loadConfig({});
  const dataDir = defaultDataDir();
  // A damaged settings file must not keep the window from opening: Settings shows and rewrites it.
  const config = loaded.ok ? loaded.config : { dataDir, path: configPathOf(dataDir), file: {} };
  if (!loaded.ok) log(`the settings file cannot be used: ${loaded.message}; starting with defaults`);
  const keys = keychainKeyStore(join(app.getPath('userData'), 'api-key.enc'), log);
  let chrome: RunChrome | null = null;
  const service: RunService = new RunService({
    config,
    openOperator: async (capture, env) => {
      const opened = await openDesktopOperator(capture, env);
      // A private desktop (env given) shows none of the app's windows.
      return opened.ok && chrome && !env ? { ...opened, operator: chrome.hiddenDuringCapture(opened.operator) } : opened;
    },
    openElements: openRunElements,
    storedApiKey: () => keys.get(),
    // The memory files are sealed with a key from the OS keychain when the settings ask for it.
    memoryKey: async (): Promise<string | null> => (service.config.loaded.file.memory?.encryption?.keychain ? appMemoryKey(service.config.dataDir)() : null),
    log,
  });
  // Before the window reads anything from it: a data directory open to other accounts is tightened, and said in the log.
  await service.open();
  const backend = new AppBackend(service, keys);
  const files = new SessionFiles(service);

  // mnemo-live://run/<id>: the run's display as the same multipart stream `mnemo serve` sends.
  protocol.handle(LIVE_VIEW_SCHEME, (request) => {
    const url = new URL(request.url);
    const id = decodeURIComponent(url.pathname.replace(/^\//, ''));
    const live = url.hostname === 'run' ? service.runs.get(id)?.live : undefined;
    if (!live) return new Response(`no live run ${id}`, { status: 404 });
    const stop = new AbortController();
    const parts = liveParts(live, stop.signal);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await parts.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value));
      },
      cancel: () => stop.abort(),
    });
    return new Response(body, { headers: { 'content-type': LIVE_CONTENT_TYPE, 'cache-control': 'no-store' } });
  });

  protocol.handle(SESSION_FILE_SCHEME, async (request) => {
    // mnemo-file://session/<id>/<path inside the session folder>[?thumb=W], mnemo-file://workflow/<name>/<anchors|screens>/<file>
    const url = new URL(request.url);
    const [id, ...parts] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (url.hostname === 'workflow') {
      // Only a file the workflow refers to is served (the service checks), never another path.
      const image = id ? await service.workflows.image(id, parts.join('/')) : null;
      if (!image?.ok) return new Response(image ? image.error.message : 'not found', { status: 404 });
      return new Response(new Uint8Array(image.value.data), { headers: { 'content-type': image.value.contentType } });
    }
    const file = url.hostname === 'session' && id ? await files.read(id, parts, Number(url.searchParams.get('thumb') ?? '0')) : null;
    if (!file?.ok) return new Response(file ? file.error.message : 'not found', { status: 404 });
    return new Response(new Uint8Array(file.value.data), { headers: { 'content-type': file.value.contentType } });
  });

  const handlers = createHandlers({
    appInfo: { version: app.getVersion(), platform: process.platform },
    listDisplays: createDisplayLister({ primarySize: async () => screen.getPrimaryDisplay().size }),
    backend,
    exportReport: async (id) => {
      const report = await backend.report(id);
      if (!report.ok) return err(report.error.kind, report.error.message);
      const chosen = await dialog.showSaveDialog({ defaultPath: `mnemo-${report.value.sessionId}.html`, filters: [{ name: 'HTML report', extensions: ['html'] }] });
      if (chosen.canceled || !chosen.filePath) return ok({ path: null });
      // Owner-only and whole, as every file Mnemo writes; a failure is an answer, not a throw.
      const written = await writeUserFile(chosen.filePath, report.value.html);
      return written.ok ? ok({ path: chosen.filePath }) : err('record', written.message);
    },
  });
  registerIpc(ipcMain, createDispatcher(handlers, (url) => isRendererUrl(renderer, url)));
  // While the app is open, the local schedules fire here (as `mnemo worker` fires them), each firing once.
  service.batches.fireSchedules();
  // The Batches view follows every batch of the data directory, run here or by another process.
  const stopBatchChanges = service.batches.onChange((change) => {
    for (const window of BrowserWindow.getAllWindows()) if (!window.isDestroyed()) window.webContents.send(BATCH_CHANGE_CHANNEL, change);
  });

  // Sandboxed preloads must be CommonJS, hence .cjs (see electron.vite.config.ts).
  const preload = join(outDir, 'preload', 'index.cjs');
  let mainWindow: BrowserWindow | null = null;
  chrome = new RunChrome({ service, mainWindow: () => mainWindow, preload, renderer, stopShortcut: process.env.MNEMO_STOP_SHORTCUT ?? 'Ctrl+Alt+Escape', log });
  return {
    openMainWindow: () => {
      mainWindow = createMainWindow({ preload, renderer });
      mainWindow.on('closed', () => (mainWindow = null));
      return mainWindow;
    },
    async shutdown() {
      stopBatchChanges();
      await service.close();
      chrome?.dispose();
    },
  };
}
