/**
 * The renderer's Content-Security-Policy, in one place: the build injects it as a <meta> tag
 * (file:// pages have no response headers) and the main process also sends it as a header.
 *
 * Production allows only our own files: no inline scripts or styles, no eval, no remote loads.
 * The dev server needs inline scripts (the React refresh preamble), inline styles (Vite injects
 * CSS as <style>) and its HMR websocket, so development gets a looser policy.
 */
export interface CspOptions {
  /** Origin of the Vite dev server (`http://localhost:5173`); absent for a build. */
  devServerOrigin?: string;
}

export function contentSecurityPolicy(options: CspOptions = {}): string {
  const dev = options.devServerOrigin;
  const hmrSocket = dev ? dev.replace(/^http/, 'ws') : undefined;
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    'script-src': dev ? ["'self'", "'unsafe-inline'"] : ["'self'"],
    'style-src': dev ? ["'self'", "'unsafe-inline'"] : ["'self'"],
    // mnemo-file: serves the screenshots in the app, mnemo-live: a run's live view (src/main/app/compose.ts).
    'img-src': ["'self'", 'data:', 'mnemo-file:', 'mnemo-live:'],
    'font-src': ["'self'"],
    'connect-src': hmrSocket ? ["'self'", 'mnemo-file:', hmrSocket] : ["'self'", 'mnemo-file:'],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'object-src': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}
