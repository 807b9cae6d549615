/**
 * The app's renderer for the browser: the same build Electron loads (out/renderer), served with
 * its Content-Security-Policy as a header. From a clone the build may be missing or older than the
 * sources: it is made first (electron-vite, a second or two), so `npx mnemo serve` just works.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { contentSecurityPolicy } from '../../shared/csp';
import { PACKAGE_ROOT } from '../package-root';
import type { Reply } from '../http/http-io';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};


async function newestMtime(path: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(path, { withFileTypes: true }).catch(() => [])) {
    const full = join(path, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestMtime(full) : (await stat(full)).mtimeMs);
  }
  return newest;
}

/**
 * The folder with the built renderer, building it when it is missing or older than its sources.
 * A message when it cannot be had (no build and no build tool, as in an installed package).
 */
export async function ensureRendererBuilt(root = PACKAGE_ROOT, log: (line: string) => void = () => undefined): Promise<{ ok: true; dir: string } | { ok: false; message: string }> {
  const dir = join(root, 'out', 'renderer');
  const built = await stat(join(dir, 'index.html')).then((info) => info.mtimeMs, () => 0);
  const sources = Math.max(await newestMtime(join(root, 'src', 'renderer')), await newestMtime(join(root, 'src', 'shared')));
  if (built > 0 && (sources === 0 || built >= sources)) return { ok: true, dir };
  let build: (config: { root: string; configFile: string; logLevel: 'warn' | 'error' }) => Promise<void>;
  try {
    ({ build } = (await import('electron-vite')) as unknown as { build: typeof build });
  } catch {
    return built > 0 ? { ok: true, dir } : { ok: false, message: `the app is not built (${dir} is missing) and electron-vite is not installed to build it: run npm install, then npm run build` };
  }
  log(built > 0 ? 'the app changed since it was built: building it again...' : 'building the app (the first time only)...');
  try {
    await build({ root, configFile: join(root, 'electron.vite.config.ts'), logLevel: 'warn' });
  } catch (error) {
    return { ok: false, message: `building the app failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { ok: true, dir };
}

/** A file of the built renderer; `/` and any unknown path without an extension is the app itself. */
export async function rendererFile(dir: string, urlPath: string): Promise<Reply> {
  let relative: string;
  try {
    relative = urlPath === '/' || extname(urlPath) === '' ? 'index.html' : decodeURIComponent(urlPath.replace(/^\/+/, ''));
  } catch {
    return { status: 400, json: { error: `the path ${urlPath} is not valid percent-encoding` } };
  }
  const path = normalize(join(dir, relative));
  if (!path.startsWith(resolve(dir) + sep)) return { status: 404, json: { error: 'not found' } };
  try {
    const body = await readFile(path);
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    const headers: Record<string, string> = { 'content-security-policy': contentSecurityPolicy(), 'cache-control': relative === 'index.html' ? 'no-store' : 'private, max-age=3600' };
    return { status: 200, body, contentType: type, headers };
  } catch {
    return { status: 404, json: { error: `not found: ${urlPath}` } };
  }
}
