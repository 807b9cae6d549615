/**
 * The architecture's environment rule, enforced by ESLint: `electron` is imported only in
 * src/main/app/ and src/preload/. Runs the project's real ESLint config on sample files.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function electronErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('electron imports', () => {
  const importing = `import { app } from 'electron';\nexport const ready = app.isReady();\n`;
  const importingSubpath = `import { ipcRenderer } from 'electron/renderer';\nexport const r = ipcRenderer;\n`;

  for (const file of ['src/main/operator/capture-probe.ts', 'src/main/agent/loop-probe.ts', 'src/shared/probe.ts', 'src/renderer/src/probe.tsx', 'src/main/cli/probe.ts']) {
    it(`are refused in ${file}`, async () => {
      expect(await electronErrors(file, importing)).toEqual([expect.stringMatching(/only in src\/main\/app\/ or src\/preload\//)]);
      expect(await electronErrors(file, importingSubpath)).toHaveLength(1);
    });
  }

  for (const file of ['src/main/app/probe.ts', 'src/preload/probe.ts']) {
    it(`are allowed in ${file}`, async () => {
      expect(await electronErrors(file, importing)).toEqual([]);
    });
  }
});
