/**
 * A batch's secrets, named in the values file and read when its rows run: from the environment,
 * and from a real Secret Service (a private D-Bus bus with GNOME Keyring, stopped by PID), stored
 * there with secret-tool as a user would. A secret nowhere to be found is named with the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchDefinition } from '../../../src/main/batch/records';
import { parseValues } from '../../../src/main/batch/values';
import { resolveRowValues } from '../../../src/main/service/batches/batch-rows';
import { osKeychainOf } from '../../../src/main/settings/keychain/os-keychain';
import { startSessionBus, type TestSessionBus } from '../../fixtures/secret-service';

let bus: TestSessionBus;
beforeAll(async () => {
  bus = await startSessionBus();
  await bus.startKeyring();
}, 60_000);
afterAll(async () => {
  await bus?.stop();
});

function batchOf(csv: string): BatchDefinition {
  const table = parseValues(csv, 'csv', 'rows.csv');
  if (!table.ok) throw new Error(table.message);
  return {
    id: 'b-test',
    createdAt: 0,
    source: { kind: 'workflow', name: 'portal', policy: 'stop', speed: 1 },
    valuesFile: 'rows.csv',
    columns: table.value.columns,
    rows: table.value.rows,
    concurrency: 1,
    concurrencyReason: '1',
    retries: 0,
    desktop: {},
  };
}

describe('the secrets of a batch', () => {
  it('reads ${env:NAME} from the environment and ${keychain:NAME} from the Secret Service, for the rows asked', async () => {
    expect(bus.secretTool(['store', '--label=Mnemo parameter portal', 'application', 'mnemo-param', 'data-dir', 'portal'], 'kept-in-the-keyring').code).toBe(0);
    const batch = batchOf('user,password\nada,${env:PORTAL_PASSWORD}\ngrace,${keychain:portal}\n');
    const env = { ...bus.env, PORTAL_PASSWORD: 'from-the-environment' };
    const resolved = await resolveRowValues(batch, [1, 2], { env, keychain: () => osKeychainOf('linux', env) });
    expect(resolved).toEqual({
      ok: true,
      values: new Map([
        [1, new Map([['user', 'ada'], ['password', 'from-the-environment']])],
        [2, new Map([['user', 'grace'], ['password', 'kept-in-the-keyring']])],
      ]),
    });
    // Only the rows asked for are read: a resume of row 1 needs no keychain.
    const rowOne = await resolveRowValues(batch, [1], { env, keychain: () => { throw new Error('the keychain was asked'); } });
    expect(rowOne.ok).toBe(true);
  }, 30_000);

  it('names a secret that is nowhere, with where to put it', async () => {
    const env = { ...bus.env };
    const missingEnv = await resolveRowValues(batchOf('password\n${env:NOT_SET_ANYWHERE}\n'), [1], { env, keychain: () => osKeychainOf('linux', env) });
    expect(missingEnv).toEqual({ ok: false, message: 'row 1, column "password": the environment variable NOT_SET_ANYWHERE is not set (the file names it for a secret)' });
    const missingKey = await resolveRowValues(batchOf('password\n${keychain:nobody}\n'), [1], { env, keychain: () => osKeychainOf('linux', env) });
    expect(missingKey).toMatchObject({ ok: false, message: expect.stringContaining('row 1, column "password": the Secret Service keeps no secret for "nobody"') });
    expect(missingKey).toMatchObject({ message: expect.stringContaining('secret-tool store --label "Mnemo parameter nobody" application mnemo-param data-dir nobody') });
  }, 30_000);
});
