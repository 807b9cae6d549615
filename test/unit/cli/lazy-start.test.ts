/**
 * `mnemo --help`, `mnemo act` and `mnemo screenshot` start fast because the program loads only
 * the command declarations (src/main/cli/program/) and commander; each command's work, and every
 * heavy dependency (sharp, nut-js, openai, ioredis, zod), is imported when that command runs. The
 * real build, analysed: what the entry imports before any command runs. (`npm run bench:start`
 * measures the time.)
 */
import { builtinModules } from 'node:module';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { cliBuildOptions } from '../../../scripts/build-cli.js';

/** The files and packages the entry loads before its first dynamic import. */
function staticClosure(metafile: Metafile, entry: string): { outputs: Set<string>; packages: Set<string>; sources: Set<string> } {
  const outputs = new Set<string>();
  const packages = new Set<string>();
  const visit = (output: string) => {
    if (outputs.has(output)) return;
    outputs.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) packages.add(imported.path);
      else visit(imported.path);
    }
  };
  visit(entry);
  const sources = new Set([...outputs].flatMap((output) => Object.keys(metafile.outputs[output]?.inputs ?? {})));
  return { outputs, packages, sources };
}

describe('the built CLI', () => {
  it('loads commander and the command declarations at start, nothing else', async () => {
    const result = await build({ ...cliBuildOptions(), write: false });
    const entry = Object.keys(result.metafile.outputs).find((output) => output.endsWith('dist/cli/mnemo.js'));
    expect(entry).toBeDefined();
    const { packages, sources } = staticClosure(result.metafile, entry as string);

    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    expect([...packages].filter((name) => !builtins.has(name))).toEqual(['commander']);
    // The work of each command is a chunk of its own, loaded by its action.
    expect([...sources].filter((source) => source.startsWith('src/main/cli/commands/'))).toEqual([]);
    expect([...sources].filter((source) => !/^src\/(main\/cli\/(main|options|exit-codes)\.ts|main\/cli\/program\/|shared\/model-families\.ts|shared\/store-location\.ts|main\/replay\/policy\.ts)/.test(source))).toEqual([]);
  });

  it('keeps tesseract.js and its data out of the bundle, loaded only where text is read', async () => {
    const result = await build({ ...cliBuildOptions(), write: false });
    const imports = Object.entries(result.metafile.outputs).flatMap(([output, { imports: list }]) => list.map((imported) => ({ output, ...imported })));
    const ocr = imports.filter((imported) => imported.path.startsWith('tesseract.js') || imported.path.startsWith('@tesseract.js-data/'));
    // External (read from node_modules, WebAssembly core and language data included), and only through import().
    expect(ocr.length).toBeGreaterThan(0);
    expect(ocr.filter((imported) => !imported.external || imported.kind !== 'dynamic-import')).toEqual([]);
    const bundled = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs)).filter((input) => input.includes('node_modules/tesseract.js') || input.includes('@tesseract.js-data'));
    expect(bundled).toEqual([]);
  });

  it('bundles zod without its translations, and loads dbus-next only where an accessibility bus is read', async () => {
    const result = await build({ ...cliBuildOptions(), write: false });
    const inputs = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    // English, which zod's schemas import themselves, is the one locale in the build.
    expect(inputs.filter((input) => input.includes('node_modules/zod/') && input.includes('/locales/'))).toEqual(['node_modules/zod/v4/locales/en.js']);
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
    const dbus = imports.filter((imported) => imported.path === 'dbus-next');
    expect(dbus.length).toBeGreaterThan(0);
    expect(dbus.filter((imported) => !imported.external || imported.kind !== 'dynamic-import')).toEqual([]);
  });
});
