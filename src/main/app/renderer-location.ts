/**
 * Where the renderer is loaded from, and whether a URL is that renderer. The IPC layer answers
 * only frames whose URL passes `isRendererUrl`: a navigated, framed or foreign page gets nothing.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type RendererLocation =
  /** A build: out/renderer/index.html loaded from disk. */
  | { kind: 'file'; file: string }
  /** `electron-vite dev`: the Vite dev server. */
  | { kind: 'dev-server'; url: string };

/**
 * The dev server URL is honoured only for an unpackaged app: a packaged build always loads its
 * own files, whatever the environment says.
 */
export function resolveRendererLocation(options: {
  outDir: string;
  isPackaged: boolean;
  devServerUrl: string | undefined;
}): RendererLocation {
  if (!options.isPackaged && options.devServerUrl) return { kind: 'dev-server', url: options.devServerUrl };
  return { kind: 'file', file: join(options.outDir, 'renderer', 'index.html') };
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** Same document as the renderer: query and fragment may differ, nothing else. */
export function isRendererUrl(location: RendererLocation, url: string): boolean {
  const candidate = parse(url);
  if (!candidate) return false;
  if (location.kind === 'dev-server') {
    const server = parse(location.url);
    return server !== null && candidate.origin === server.origin;
  }
  const expected = pathToFileURL(location.file);
  return candidate.protocol === 'file:' && candidate.host === expected.host && candidate.pathname === expected.pathname;
}

/** The dev server's origin for the CSP, or undefined for a build. */
export function devServerOrigin(location: RendererLocation): string | undefined {
  return location.kind === 'dev-server' ? (parse(location.url)?.origin ?? undefined) : undefined;
}
