/**
 * The layering of src/main, enforced by ESLint (docs/architecture.md, "Layers"): the replayer does
 * not import the agent, the operator and the models do not import each other, and nothing below
 * the front ends (cli, app, server, mcp) imports them, and the front ends keep their order. Runs the
 * project's real ESLint config.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(filePath: string, from: string): Promise<string[]> {
  const code = `import * as other from '${from}';\nexport const used = other;\n`;
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layers of src/main', () => {
  const refused: Array<[string, string, RegExp]> = [
    ['src/main/replay/probe.ts', '../agent/device-agent', /replay\/ must not import src\/main\/agent\//],
    ['src/main/operator/probe.ts', '../model/types', /operator\/ must not import src\/main\/model\//],
    ['src/main/operator/x11/probe.ts', '../../model', /operator\/ must not import src\/main\/model\//],
    ['src/main/model/probe.ts', '../operator/capture', /model\/ must not import src\/main\/operator\//],
    ['src/main/store/probe.ts', '../cli/main', /store\/ must not import src\/main\/cli\//],
    ['src/main/agent/probe.ts', '../app/compose', /agent\/ must not import src\/main\/app\//],
    ['src/main/service/probe.ts', '../server/http', /service\/ must not import src\/main\/server\//],
    ['src/main/run/probe.ts', '../agent/device-agent', /run\/ must not import src\/main\/agent\//],
    ['src/main/disk/probe.ts', '../store/paths', /disk\/ must not import src\/main\/store\//],
    // What memory/ and store/ both need (process liveness) lives in disk/.
    ['src/main/memory/probe.ts', '../store/writer-identity', /memory\/ must not import src\/main\/store\//],
    // The front ends in their order: the HTTP server and the MCP server know neither each other nor the entries.
    ['src/main/server/probe.ts', '../mcp/http-endpoint', /server\/ must not import src\/main\/mcp\//],
    ['src/main/mcp/probe.ts', '../server/mnemo-server', /mcp\/ must not import src\/main\/server\//],
    ['src/main/mcp/tools/probe.ts', '../../cli/main', /mcp\/ must not import src\/main\/cli\//],
    ['src/main/app/probe.ts', '../cli/main', /app\/ must not import src\/main\/cli\//],
    ['src/main/cli/commands/probe.ts', '../../app/compose', /cli\/ must not import src\/main\/app\//],
    ['src/main/http/probe.ts', '../service/run-service', /http\/ must not import src\/main\/service\//],
  ];
  for (const [file, from, message] of refused) {
    it(`refuses ${from} in ${file}`, async () => {
      expect(await layerErrors(file, from)).toEqual([expect.stringMatching(message)]);
    });
  }

  const allowed: Array<[string, string]> = [
    ['src/main/service/probe.ts', '../agent/device-agent'],
    ['src/main/service/probe.ts', '../replay/replayer'],
    ['src/main/cli/probe.ts', '../service/run-service'],
    ['src/main/replay/probe.ts', '../run/lifecycle'],
    ['src/main/model/probe.ts', '../../shared/settings'],
    ['src/main/operator/keyboard/probe.ts', '../x11/connection'],
    ['src/main/store/probe.ts', '../disk/files'],
    ['src/main/memory/probe.ts', '../disk/files'],
    ['src/main/memory/probe.ts', '../disk/process-exists'],
    ['src/main/store/probe.ts', '../disk/folder-walk'],
    // A process entry starts the HTTP and MCP servers; both take their HTTP primitives from http/.
    ['src/main/cli/commands/probe.ts', '../../server/mnemo-server'],
    ['src/main/cli/commands/probe.ts', '../../mcp/http-endpoint'],
    ['src/main/mcp/probe.ts', '../http/access'],
    ['src/main/server/probe.ts', '../http/http-io'],
    // A package's own folder of the same name is not a layer.
    ['src/main/mcp/probe.ts', '@modelcontextprotocol/sdk/server/mcp.js'],
  ];
  for (const [file, from] of allowed) {
    it(`allows ${from} in ${file}`, async () => {
      expect(await layerErrors(file, from)).toEqual([]);
    });
  }
});
