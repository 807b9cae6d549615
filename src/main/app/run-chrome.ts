/**
 * The app around a run: while the agent works the main window gets out of the captured display
 * (minimised) and a small always-on-top status widget shows the step, with Pause and Stop; a tray
 * menu and a global shortcut (default Ctrl+Alt+Esc) stop the run from anywhere. The widget is
 * kept out of the screenshots: content protection where the platform has it, hidden around each
 * capture where it has not (Linux; see `hiddenDuringCapture`).
 */
import { BrowserWindow, globalShortcut, Menu, nativeImage, Tray } from 'electron';
import { AGENT_EVENT_CHANNEL } from '../../shared/contract';
import type { Operator } from '../operator/desktop-operator';
import type { RunHandle, RunService } from '../service/run-service';
import type { RendererLocation } from './renderer-location';

export interface RunChromeOptions {
  service: RunService;
  mainWindow: () => BrowserWindow | null;
  preload: string;
  renderer: RendererLocation;
  /** Accelerator that stops the run, e.g. `Ctrl+Alt+Escape`. */
  stopShortcut: string;
  log: (line: string) => void;
}

/** Platforms whose compositor honours content protection (the widget never appears in captures). */
const CONTENT_PROTECTION = process.platform === 'win32' || process.platform === 'darwin';

export class RunChrome {
  private widget: BrowserWindow | null = null;
  private tray: Tray | null = null;
  private current: RunHandle | null = null;

  constructor(private readonly options: RunChromeOptions) {
    options.service.runs.onRunStarted((run) => this.follow(run));
    this.tray = new Tray(nativeImage.createEmpty());
    this.tray.setToolTip('Mnemo');
    this.updateTray();
    if (!globalShortcut.register(options.stopShortcut, () => this.current?.stop())) {
      options.log(`the stop shortcut ${options.stopShortcut} could not be registered (another program has it); use the tray menu or the widget`);
    }
  }

  /** Wraps the operator so the widget is out of every capture where content protection is missing. */
  hiddenDuringCapture(operator: Operator): Operator {
    if (CONTENT_PROTECTION) return operator;
    return {
      observe: async (options) => {
        const widget = this.widget;
        const shown = widget?.isVisible() ?? false;
        if (shown) widget?.hide();
        try {
          return await operator.observe(options);
        } finally {
          if (shown) widget?.showInactive();
        }
      },
      execute: (action, frame, signal) => operator.execute(action, frame, signal),
      fingerprint: (display) => operator.fingerprint(display),
      activeWindowTitle: () => operator.activeWindowTitle(),
      ...(operator.liveFrame ? { liveFrame: operator.liveFrame.bind(operator) } : {}),
    };
  }

  dispose(): void {
    globalShortcut.unregister(this.options.stopShortcut);
    this.tray?.destroy();
    this.widget?.destroy();
  }

  private follow(run: RunHandle): void {
    // A run on a private desktop never touches this display: the window stays where it is.
    const onThisDisplay = !run.desktop.private;
    this.current = run;
    if (onThisDisplay) {
      this.options.mainWindow()?.minimize();
      this.showWidget();
    }
    this.updateTray();
    void (async () => {
      for await (const event of run.events()) {
        for (const window of BrowserWindow.getAllWindows()) if (!window.isDestroyed()) window.webContents.send(AGENT_EVENT_CHANNEL, event);
      }
      await run.done;
      if (this.current === run) this.current = null;
      if (onThisDisplay) {
        this.widget?.hide();
        const main = this.options.mainWindow();
        if (main && !main.isDestroyed()) {
          main.restore();
          main.focus();
        }
      }
      this.updateTray();
    })().catch((error: unknown) => this.options.log(`following run ${run.id} failed: ${String(error)}`));
  }

  private showWidget(): void {
    if (!this.widget || this.widget.isDestroyed()) {
      this.widget = new BrowserWindow({
        width: 320,
        height: 96,
        frame: false,
        resizable: false,
        alwaysOnTop: true,
        skipTaskbar: true,
        focusable: true,
        show: false,
        webPreferences: { preload: this.options.preload, contextIsolation: true, sandbox: true, nodeIntegration: false },
      });
      this.widget.setContentProtection(true);
      this.widget.setAlwaysOnTop(true, 'screen-saver');
      // The same renderer, in its widget form.
      const { renderer } = this.options;
      if (renderer.kind === 'file') void this.widget.loadFile(renderer.file, { hash: 'widget' });
      else void this.widget.loadURL(`${renderer.url}#widget`);
    }
    this.widget.showInactive();
  }

  private updateTray(): void {
    const running = this.current !== null;
    this.tray?.setContextMenu(
      Menu.buildFromTemplate([
        { label: running ? `Stop the run (${this.options.stopShortcut})` : 'No run going on', enabled: running, click: () => this.current?.stop() },
        { label: running && this.current?.paused ? 'Resume' : 'Pause', enabled: running, click: () => (this.current?.paused ? this.current.resume() : this.current?.pause()) },
        { type: 'separator' },
        { label: 'Show Mnemo', click: () => this.options.mainWindow()?.show() },
        { role: 'quit' },
      ]),
    );
  }
}
