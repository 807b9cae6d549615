/**
 * Windows: a generic credential in the Credential Manager (Control Panel → Credential Manager →
 * Windows Credentials, listed by the entry's label), through Windows PowerShell calling
 * advapi32's CredReadW / CredWriteW / CredDeleteW. `cmdkey` can store a credential but not read
 * its password back, and takes it on the command line; PowerShell's CredentialManager module is
 * not part of Windows. The script goes as -EncodedCommand (no quoting), the secret on stdin and
 * back on stdout as base64, the outcome as the exit code. Not tested here (no Windows in CI).
 */
import type { KeychainEntry, KeychainProblem, KeychainRead, KeychainWrite, OsKeychain } from './keychain';
import { lastLine, runTool, type ToolRun } from './tool';

const NAME = 'the Windows Credential Manager';
const NOT_FOUND = 3;

export interface WindowsCredentialsDeps {
  env: NodeJS.ProcessEnv;
  command?: string;
  timeoutMs?: number;
}

/** The P/Invoke declarations and one action: read, write or remove the credential named by $env:MNEMO_CRED_TARGET. */
function script(action: 'read' | 'write' | 'remove'): string {
  return `
$ErrorActionPreference = 'Stop'
Add-Type -TypeDefinition @'
using System;
using System.Runtime.InteropServices;
public static class MnemoCred {
  [StructLayout(LayoutKind.Sequential, CharSet = CharSet.Unicode)]
  public struct CREDENTIAL {
    public int Flags; public int Type; public string TargetName; public string Comment;
    public System.Runtime.InteropServices.ComTypes.FILETIME LastWritten;
    public int CredentialBlobSize; public IntPtr CredentialBlob; public int Persist;
    public int AttributeCount; public IntPtr Attributes; public string TargetAlias; public string UserName;
  }
  [DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
  public static extern bool CredReadW(string target, int type, int flags, out IntPtr credential);
  [DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
  public static extern bool CredWriteW(ref CREDENTIAL credential, int flags);
  [DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
  public static extern bool CredDeleteW(string target, int type, int flags);
  [DllImport("advapi32.dll")]
  public static extern void CredFree(IntPtr buffer);
}
'@
$target = $env:MNEMO_CRED_TARGET
$notFound = 1168
switch ('${action}') {
  'read' {
    $pointer = [IntPtr]::Zero
    if (-not [MnemoCred]::CredReadW($target, 1, 0, [ref]$pointer)) {
      $code = [Runtime.InteropServices.Marshal]::GetLastWin32Error()
      if ($code -eq $notFound) { exit ${NOT_FOUND} }
      [Console]::Error.WriteLine("CredRead failed: " + (New-Object ComponentModel.Win32Exception $code).Message); exit 1
    }
    try {
      $credential = [Runtime.InteropServices.Marshal]::PtrToStructure($pointer, [type][MnemoCred+CREDENTIAL])
      $bytes = New-Object byte[] $credential.CredentialBlobSize
      [Runtime.InteropServices.Marshal]::Copy($credential.CredentialBlob, $bytes, 0, $bytes.Length)
      [Console]::Out.Write([Convert]::ToBase64String($bytes))
    } finally { [MnemoCred]::CredFree($pointer) }
  }
  'write' {
    $bytes = [Convert]::FromBase64String([Console]::In.ReadToEnd().Trim())
    $blob = [Runtime.InteropServices.Marshal]::AllocHGlobal($bytes.Length)
    try {
      [Runtime.InteropServices.Marshal]::Copy($bytes, 0, $blob, $bytes.Length)
      $credential = New-Object MnemoCred+CREDENTIAL
      $credential.Type = 1
      $credential.TargetName = $target
      $credential.UserName = $env:MNEMO_CRED_USER
      $credential.Comment = $env:MNEMO_CRED_COMMENT
      $credential.CredentialBlobSize = $bytes.Length
      $credential.CredentialBlob = $blob
      $credential.Persist = 2
      if (-not [MnemoCred]::CredWriteW([ref]$credential, 0)) {
        $code = [Runtime.InteropServices.Marshal]::GetLastWin32Error()
        [Console]::Error.WriteLine("CredWrite failed: " + (New-Object ComponentModel.Win32Exception $code).Message); exit 1
      }
    } finally { [Runtime.InteropServices.Marshal]::FreeHGlobal($blob) }
  }
  'remove' {
    if (-not [MnemoCred]::CredDeleteW($target, 1, 0)) {
      $code = [Runtime.InteropServices.Marshal]::GetLastWin32Error()
      if ($code -eq $notFound) { exit 0 }
      [Console]::Error.WriteLine("CredDelete failed: " + (New-Object ComponentModel.Win32Exception $code).Message); exit 1
    }
  }
}
exit 0
`;
}

/** -EncodedCommand takes the script as base64 of UTF-16LE. */
function encoded(text: string): string {
  return Buffer.from(text, 'utf16le').toString('base64');
}

export function windowsCredentials(deps: WindowsCredentialsDeps): OsKeychain {
  const command = deps.command ?? 'powershell.exe';
  const timeoutMs = deps.timeoutMs ?? 120_000;
  const run = (action: 'read' | 'write' | 'remove', entry: KeychainEntry, input?: string) =>
    runTool(command, ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand', encoded(script(action))], {
      // The names travel in the environment, where no quoting can break the script.
      env: { ...deps.env, MNEMO_CRED_TARGET: entry.label, MNEMO_CRED_USER: entry.service, MNEMO_CRED_COMMENT: entry.account },
      timeoutMs,
      ...(input !== undefined ? { input } : {}),
    });

  function problemOf(ran: ToolRun, doing: string): KeychainProblem {
    switch (ran.kind) {
      case 'missing':
        return { kind: 'unavailable', message: `${command} is not there, so Mnemo cannot reach ${NAME}`, fix: 'keep the key in config.json (owner-only), or set it in the environment' };
      case 'timed out':
        return { kind: 'failed', message: `${NAME} did not answer within ${Math.round(ran.ms / 1000)} s while ${doing}`, fix: 'try again, or set the key in the environment instead' };
      case 'failed':
        return { kind: 'failed', message: `${command} could not be run while ${doing}: ${ran.message}`, fix: 'check Windows PowerShell, or set the key in the environment instead' };
      case 'exited':
        return { kind: 'failed', message: `${NAME} refused while ${doing}: ${lastLine(ran.stderr) || `PowerShell exited with ${ran.code}`}`, fix: 'check the Credential Manager, or set the key in the environment instead' };
    }
  }

  return {
    name: NAME,
    async read(entry): Promise<KeychainRead> {
      const ran = await run('read', entry);
      if (ran.kind === 'exited' && ran.code === 0) return { ok: true, secret: Buffer.from(ran.stdout.trim(), 'base64').toString('utf16le') };
      if (ran.kind === 'exited' && ran.code === NOT_FOUND) return { ok: true, secret: null };
      return { ok: false, problem: problemOf(ran, 'reading the API key') };
    },
    async write(entry, secret): Promise<KeychainWrite> {
      // UTF-16LE, as the Credential Manager and cmdkey keep a password.
      const ran = await run('write', entry, Buffer.from(secret, 'utf16le').toString('base64'));
      return ran.kind === 'exited' && ran.code === 0 ? { ok: true } : { ok: false, problem: problemOf(ran, 'saving the API key') };
    },
    async remove(entry): Promise<KeychainWrite> {
      const ran = await run('remove', entry);
      return ran.kind === 'exited' && ran.code === 0 ? { ok: true } : { ok: false, problem: problemOf(ran, 'removing the API key') };
    },
  };
}
