/**
 * One meaning per name (docs/architecture.md, "Glossary"): an exported name is declared in one
 * file of src/ only. Two modules that each export a `Fact`, a `formatDuration` or a
 * `writeFileAtomically` of their own are two meanings under one word, and a reader who finds one
 * cannot tell which the other code means. Re-exports (`export { x } from`, `export *`) are the
 * same declaration seen from another place and do not count.
 *
 * The failure message lists every such name with its files; the same scan, run by hand:
 * `npx vitest run --project unit test/unit/lint/exported-names.test.ts`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');

/**
 * Names that may be declared in more than one file, each with why. Empty: every exported name has
 * one meaning. A name added here is a name a reader has to disambiguate by its path.
 */
const ALLOWED: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** The names a file declares and exports itself (not what it re-exports from elsewhere). */
export function declaredExports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const local = new Map<string, true>();
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const declared = statement.declarationList.declarations.flatMap((declaration) => bindingNames(declaration.name));
      for (const name of declared) local.set(name, true);
      if (isExported(statement)) names.push(...declared);
      continue;
    }
    if (
      ts.isFunctionDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement)
    ) {
      if (!statement.name) continue;
      local.set(statement.name.text, true);
      const isDefault = (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
      if (isExported(statement) && !isDefault) names.push(statement.name.text);
    }
  }
  // `export { a, b as c }` without `from` exports what the file declared, under the public name.
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier || !statement.exportClause) continue;
    if (!ts.isNamedExports(statement.exportClause)) continue;
    for (const element of statement.exportClause.elements) {
      const own = (element.propertyName ?? element.name).text;
      if (local.has(own)) names.push(element.name.text);
    }
  }
  return [...new Set(names)];
}

/** Every exported name declared in more than one file of src/, with those files. */
export function namesDeclaredTwice(root = SRC): Map<string, string[]> {
  const files = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    for (const name of declaredExports(file)) {
      const list = files.get(name) ?? [];
      list.push(relative(root, file));
      files.set(name, list);
    }
  }
  return new Map([...files].filter(([, where]) => where.length > 1).sort(([a], [b]) => a.localeCompare(b)));
}

describe('one meaning per name', () => {
  it('declares each exported name of src/ in one file only', () => {
    const twice = [...namesDeclaredTwice()].filter(([name]) => !(name in ALLOWED));
    const listing = twice.map(([name, where]) => `${name}: ${where.join(', ')}`);
    expect(listing, 'rename one of them, or merge them into one declaration (see the glossary in docs/architecture.md)').toEqual([]);
  });

  it('keeps the allow-list to names that really are declared twice', () => {
    const twice = namesDeclaredTwice();
    const stale = Object.keys(ALLOWED).filter((name) => !twice.has(name));
    expect(stale, 'these are declared once now: take them off ALLOWED').toEqual([]);
  });

  it('sees a name declared twice, and not a re-export', () => {
    const fixture = resolve(import.meta.dirname, '../../fixtures/exported-names');
    expect([...namesDeclaredTwice(fixture).keys()]).toEqual(['Twice']);
  });
});
