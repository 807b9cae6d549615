/**
 * The keychain of this platform: the Secret Service on Linux (secret-tool), the macOS Keychain
 * (security), the Windows Credential Manager (PowerShell). Elsewhere none: every call answers
 * `unavailable`, and config.json keeps the key.
 */
import type { OsKeychain } from './keychain';
import { macosKeychain } from './macos-keychain';
import { secretServiceKeychain } from './secret-service';
import { windowsCredentials } from './windows-credentials';

export function osKeychainOf(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): OsKeychain {
  if (platform === 'linux') return secretServiceKeychain({ env });
  if (platform === 'darwin') return macosKeychain({ env });
  if (platform === 'win32') return windowsCredentials({ env });
  const problem = { kind: 'unavailable' as const, message: `Mnemo knows no OS keychain on ${platform}`, fix: 'keep the key in config.json (owner-only), or set it in the environment' };
  return {
    name: 'no OS keychain',
    read: async () => ({ ok: false, problem }),
    write: async () => ({ ok: false, problem }),
    remove: async () => ({ ok: false, problem }),
  };
}
