#!/usr/bin/env node
/**
 * Builds the `mnemo` command into dist/cli/ with esbuild: the CLI's entry (mnemo.js), the operator
 * host the CLI starts as a child process (operator-host.js), and the chunks they share, split at
 * every dynamic import so that a command loads only what it uses (`mnemo --help` loads commander
 * and the command declarations, nothing else). Dependencies stay in node_modules (native modules
 * cannot be bundled), except zod: pure ES modules, about a hundred files that Node would otherwise
 * resolve and read one by one each time a command checks its input. `npm install` runs it (the
 * `prepare` script); `npm run build:cli` too.
 *
 * Every file is written beside its target and renamed into place, chunks before the entries that
 * import them and build.json (the inputs, whose mtime is the build's time) last, so a `mnemo`
 * started during a build runs the old build or the new one, never half of one.
 *
 * Run as a script: builds unconditionally and says so in one line.
 */
import { statSync } from 'node:fs';
import { readdir, readFile, rename, stat, unlink, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = { mnemo: 'src/main/cli/main.ts', 'operator-host': 'src/main/operator/operator-host.ts' };
const MANIFEST = 'build.json';
/** Dependencies bundled into the chunks; every other package is imported from node_modules. */
const BUNDLED = new Set(['zod']);

/** Keeps a package external unless it is one of BUNDLED. */
const externalPackages = {
  name: 'mnemo:external-packages',
  /** @param {import('esbuild').PluginBuild} build */
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.has(args.path.split('/')[0] ?? '') ? undefined : { path: args.path, external: true }));
  },
};

/**
 * zod's translations of its messages into some fifty languages (about 300 KB of the bundle, parsed
 * by every command that loads zod): they reach it only through the `locales` namespaces zod
 * exports, which Mnemo never reads (its messages are English, and zod's schemas import English
 * themselves), so those namespaces are built empty.
 */
const EMPTY = 'mnemo-empty';
const zodWithoutLocales = {
  name: 'mnemo:zod-without-locales',
  /** @param {import('esbuild').PluginBuild} build */
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: EMPTY } : undefined));
    build.onLoad({ filter: /.*/, namespace: EMPTY }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * The esbuild options of the CLI build (also used by the test that keeps its start light).
 * @returns {import('esbuild').BuildOptions & { metafile: true, write: false, outdir: string }}
 */
export function cliBuildOptions(root = ROOT) {
  return {
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(root, path)])),
    outdir: join(root, 'dist', 'cli'),
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // package.json's engines.
    target: 'node20.19',
    plugins: [externalPackages, zodWithoutLocales],
    metafile: true,
    write: false,
    logLevel: 'silent',
  };
}

/** Writes `contents` to `path` through a temporary file beside it. */
async function writeWhole(path, contents) {
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, contents);
  await rename(partial, path);
}

/** @typedef {{ ok: false, message: string }} BuildFailure */

/**
 * Builds dist/cli/. Returns the number of files written, or esbuild's errors in words (a syntax
 * error in the sources, say).
 * @returns {Promise<{ ok: true, files: number } | BuildFailure>}
 */
export async function buildCli(root = ROOT) {
  const { build, formatMessages } = await import('esbuild');
  const options = cliBuildOptions(root);
  let result;
  try {
    result = await build(options);
  } catch (error) {
    const errors = Array.isArray(error?.errors) ? (await formatMessages(error.errors, { kind: 'error', color: false })).join('') : String(error);
    return { ok: false, message: errors.trim() };
  }
  const outdir = options.outdir;
  await mkdir(join(outdir, 'chunks'), { recursive: true });
  const entryPaths = new Set(Object.keys(ENTRIES).map((name) => join(outdir, `${name}.js`)));
  const ordered = [...result.outputFiles].sort((a, b) => Number(entryPaths.has(a.path)) - Number(entryPaths.has(b.path)));
  for (const file of ordered) await writeWhole(file.path, file.contents);
  // The chunks of earlier builds: nothing imports them any more.
  const written = new Set(ordered.map((file) => file.path));
  for (const name of await readdir(join(outdir, 'chunks'))) {
    const path = join(outdir, 'chunks', name);
    if (!written.has(path) && !name.endsWith('.partial')) await unlink(path).catch(() => undefined);
  }
  // The sources it read (not the packages, nor the empty modules it made up: zodWithoutLocales).
  const inputs = [...Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/') && !input.startsWith(`${EMPTY}:`)), relative(root, fileURLToPath(import.meta.url))];
  await writeWhole(join(outdir, MANIFEST), `${JSON.stringify({ inputs }, null, 1)}\n`);
  return { ok: true, files: ordered.length };
}

/**
 * Why dist/cli/ must be built again (missing, or a source newer than it), or null when it is
 * current. Stats only the files the last build read.
 * @returns {Promise<string | null>}
 */
export async function staleReason(root = ROOT) {
  const manifest = join(root, 'dist', 'cli', MANIFEST);
  let builtAt;
  let inputs;
  try {
    builtAt = (await stat(manifest)).mtimeMs;
    ({ inputs } = JSON.parse(await readFile(manifest, 'utf8')));
  } catch {
    return 'it is not built yet';
  }
  // One synchronous stat after another: this runs at every start of `mnemo` in a clone, and a few
  // hundred plain calls cost a fraction of as many promises on the thread pool.
  for (const input of inputs) {
    let time;
    try {
      time = statSync(join(root, input)).mtimeMs;
    } catch {
      time = Infinity;
    }
    if (time > builtAt) return `${input} changed since it was built`;
  }
  return null;
}

/**
 * Builds dist/cli/ when it is missing or older than its sources; says so through `log`.
 * @returns {Promise<{ ok: true, built: boolean } | BuildFailure>}
 */
export async function ensureCliBuilt(root = ROOT, log = (line) => process.stderr.write(`${line}\n`)) {
  const reason = await staleReason(root);
  if (reason === null) return { ok: true, built: false };
  log(`mnemo: building the command (${reason})...`);
  const built = await buildCli(root);
  return built.ok ? { ok: true, built: true } : built;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const built = await buildCli();
  if (!built.ok) {
    process.stderr.write(`building the mnemo command failed:\n${built.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`built ${relative(process.cwd(), join(ROOT, 'dist', 'cli')) || '.'}/ (${built.files} files) in ${Math.round(performance.now() - started)} ms\n`);
}
