/**
 * `mnemo doctor [--json]`: every precondition of a run, each ✓, ! (a warning) or ✗ with its fix in
 * one line (src/main/service/checks/doctor.ts). --json prints `[{"check", "status": "ok"|"warn"|"fail",
 * "detail", "fix"}]`. Exit codes: 0 nothing fails (warnings allowed), 1 something fails, 2 bad
 * arguments. The `key store` line says where an API key saved in Settings is kept for this data
 * directory (the OS keychain, or config.json and why), asking the keychain without a prompt. The
 * `session store` line, when one is set, says whether it answers and how many sessions wait for it.
 */
import { loadConfig, runSettingsOf, type RunFlags } from '../../settings/settings';
import { sharedStoreSettingsOf } from '../../settings/shared-store-settings';
import { openSharedStore } from '../../store/shared-store/open-store';
import { ExitCode, InvalidInputError } from '../exit-codes';

export interface DoctorOptions extends RunFlags {
  json?: boolean;
}

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

export async function doctorCommand(options: DoctorOptions): Promise<void> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  const [{ runDoctor }, { createIsolatedOperator }, { PACKAGE_ROOT }, { dataDirKeyStoreOf }] = await Promise.all([
    import('../../service/checks/doctor'),
    import('../../operator/isolated-operator'),
    import('../../package-root'),
    import('../../settings/data-dir-key-store'),
  ]);
  // The provider is checked with the key a run would use, the keychain's included.
  const keys = dataDirKeyStoreOf(config.config);
  await keys.load({ interactive: false });
  const settings = runSettingsOf(config.config, options, process.env, keys.get());
  // The shared session store, when one is set (--store, MNEMO_STORE, store.shared).
  const shared = sharedStoreSettingsOf(config.config, options);
  const store = shared.ok && shared.settings ? openSharedStore(shared.settings) : null;
  const checks = await runDoctor({
    env: process.env,
    platform: process.platform,
    dataDir: config.config.dataDir,
    model: settings.ok ? { ok: true, settings: settings.settings.model } : { ok: false, message: settings.message },
    openOperator: () => createIsolatedOperator(),
    packageRoot: PACKAGE_ROOT,
    keyStore: keys.status(config.config.file.model?.apiKey || undefined),
    sessionStore: !shared.ok ? { ok: false, message: shared.message } : store ? { ok: true, store } : null,
  }).finally(() => store?.close());
  if (options.json) process.stdout.write(`${JSON.stringify(checks)}\n`);
  else {
    const width = Math.max(...checks.map((check) => check.check.length));
    for (const check of checks) {
      process.stdout.write(`${MARK[check.status]} ${check.check.padEnd(width)}  ${check.detail}\n`);
      if (check.fix) process.stdout.write(`  ${' '.repeat(width)}  fix: ${check.fix}\n`);
    }
  }
  process.exitCode = checks.some((check) => check.status === 'fail') ? ExitCode.errorResult : ExitCode.ok;
}
