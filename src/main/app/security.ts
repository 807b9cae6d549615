/**
 * Process-wide hardening: no page may navigate, open windows, embed <webview>s or get
 * permissions; our session sends the CSP as a header on top of the build's <meta> tag.
 */
import { type App, type Session } from 'electron';

export function denyNavigationAndPopups(app: App): void {
  // Applies to every webContents ever created, including ones we did not create ourselves.
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
}

export function hardenSession(session: Session, csp: string): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
}
