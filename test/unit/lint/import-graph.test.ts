/**
 * The import graph of src/ (docs/architecture.md, "Rules that keep it plain"), read with the
 * TypeScript compiler from the sources as they are:
 *
 * - no cycle: no module reaches itself through its static imports (type-only ones included: a
 *   cycle of types is a cycle of meaning too; `import()` is left out, it loads later on purpose);
 * - interfaces are leaves: a file that only declares types (and every `types.ts`) imports only
 *   types, and no barrel (an `index.ts` that gathers a folder's modules), so reading an interface
 *   never pulls an implementation in.
 *
 * The folder layering itself is ESLint's (eslint.config.js, test/unit/lint/layers.test.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');

interface Import {
  target: string;
  typeOnly: boolean;
}

interface Module {
  file: string;
  imports: Import[];
  /** Declares types only: no value is made or exported at run time. */
  typesOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Whether an import or export names types only (`import type`, or every specifier `type`). */
function typeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (!clause) return false; // a side-effect import runs the module
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const bindings = clause.namedBindings;
    return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
  }
  if (statement.isTypeOnly) return true;
  const clause = statement.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}

/** A statement that makes nothing at run time. */
function declaresTypeOnly(statement: ts.Statement): boolean {
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) return true;
  if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) return typeOnly(statement);
  return false;
}

function readModule(file: string): Module {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const imports: Import[] = [];
  for (const statement of source.statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const target = resolveSpecifier(file, specifier.text);
    if (target) imports.push({ target, typeOnly: typeOnly(statement) });
  }
  return { file, imports, typesOnly: source.statements.length > 0 && source.statements.every(declaresTypeOnly) };
}

const modules = new Map(sourceFiles(SRC).map((file) => [file, readModule(file)]));
const shown = (file: string) => relative(SRC, file);

/** Every strongly connected group of more than one module (Tarjan). */
function cycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const { target } of modules.get(file)?.imports ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      if (group.length > 1) found.push(group.map(shown).sort());
    }
  };
  for (const file of modules.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** Each file that declares types and imports an implementation or a barrel, said as such. */
function leafProblems(): string[] {
  const problems: string[] = [];
  for (const module of modules.values()) {
    const declaresTypes = module.typesOnly || /(^|\/)types\.ts$/.test(module.file);
    if (!declaresTypes) continue;
    for (const { target, typeOnly: onlyTypes } of module.imports) {
      if (!onlyTypes) problems.push(`${shown(module.file)} imports ${shown(target)} at run time`);
      if (/(^|\/)index\.tsx?$/.test(target)) problems.push(`${shown(module.file)} imports the barrel ${shown(target)}`);
    }
  }
  return problems;
}

describe('the import graph of src/', () => {
  it('reads the sources (a sanity check of the reader itself)', () => {
    expect(modules.size).toBeGreaterThan(300);
    const types = modules.get(join(SRC, 'main/model/types.ts'));
    expect(types?.imports.map((entry) => shown(entry.target))).toContain('main/model/families/types.ts');
  });

  it('has no cycle', () => {
    expect(cycles()).toEqual([]);
  });

  it('keeps interfaces as leaves: a file that declares types imports only types, and no barrel', () => {
    expect(leafProblems()).toEqual([]);
  });

  it('finds a cycle and a leaf that imports an implementation, where there is one', () => {
    // The rules above fail when they should: a graph made up for the purpose.
    const made = new Map(modules);
    const a = join(SRC, 'made-up/a.ts');
    const b = join(SRC, 'made-up/types.ts');
    modules.set(a, { file: a, imports: [{ target: b, typeOnly: false }], typesOnly: false });
    modules.set(b, { file: b, imports: [{ target: a, typeOnly: false }], typesOnly: true });
    const barrel = join(SRC, 'made-up/index.ts');
    const leaf = join(SRC, 'made-up/leaf.ts');
    modules.set(barrel, { file: barrel, imports: [], typesOnly: false });
    modules.set(leaf, { file: leaf, imports: [{ target: barrel, typeOnly: true }], typesOnly: true });
    try {
      expect(cycles()).toContainEqual(['made-up/a.ts', 'made-up/types.ts']);
      expect(leafProblems()).toEqual(['made-up/types.ts imports made-up/a.ts at run time', 'made-up/leaf.ts imports the barrel made-up/index.ts']);
    } finally {
      modules.clear();
      for (const [file, module] of made) modules.set(file, module);
    }
  });
});
