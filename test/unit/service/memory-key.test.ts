/**
 * The app's keychain key (with a stand-in for safeStorage that really transforms the bytes): made
 * once, read back the same, never written in the clear, and a keychain that cannot open it is an
 * error rather than a new key.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keychainMemoryKey, type Keychain } from '../../../src/main/service/memory/memory-key';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function keychain(mask: number, available = true): Keychain {
  const flip = (bytes: Buffer) => Buffer.from(bytes.map((byte) => byte ^ mask));
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain) => Buffer.concat([Buffer.from('KC'), flip(Buffer.from(plain))]),
    decryptString: (sealed) => {
      if (sealed.subarray(0, 2).toString() !== 'KC') throw new Error('not sealed by this keychain');
      const plain = flip(sealed.subarray(2)).toString();
      if (!/^[A-Za-z0-9+/=]+$/.test(plain)) throw new Error('the keychain refused');
      return plain;
    },
  };
}

describe('keychain memory key', () => {
  it('is made on first use, sealed on disk, and the same afterwards', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mnemo-keychain-'));
    dirs.push(dir);
    const first = await keychainMemoryKey(dir, keychain(0x5a))();
    expect(first).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(await keychainMemoryKey(dir, keychain(0x5a))()).toBe(first);
    expect((await readFile(join(dir, 'memory', 'keychain-key.bin'))).toString('latin1')).not.toContain(first as string);
    await expect(keychainMemoryKey(dir, keychain(0x33))()).rejects.toThrow(/cannot be opened by this user's keychain/);
    expect(await keychainMemoryKey(dir, keychain(0x5a, false))()).toBeNull();
  });
});
