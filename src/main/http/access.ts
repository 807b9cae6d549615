/**
 * Who may use Mnemo's HTTP front ends (`mnemo serve` and its `/mcp`, `mnemo mcp --http`): whoever holds the token printed at start. Opening
 * `/?token=<token>` trades it for an HttpOnly cookie and sends the browser on to `/`, so the token
 * leaves the address bar; scripts send `Authorization: Bearer <token>`. A request from another
 * origin (a page on the web calling 127.0.0.1) or with another Host (DNS rebinding) is refused.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'mnemo_token';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The fewest characters a token someone configures may have (a generated one has 32). */
export const MIN_TOKEN_LENGTH = 32;

/** What an HTTP Bearer token may hold (RFC 6750's b64token): a token outside it cannot be sent as one. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Why a configured token (`MNEMO_MCP_TOKEN`) cannot be used, in one line naming the rule, or null.
 * `where` names where it came from. Generated tokens (`newToken`) always pass.
 */
export function tokenProblem(token: string, where: string): string | null {
  if (token.length >= MIN_TOKEN_LENGTH && BEARER_TOKEN.test(token)) return null;
  const why = token.length < MIN_TOKEN_LENGTH ? `it has ${token.length} character${token.length === 1 ? '' : 's'}` : 'it holds a character a Bearer token cannot carry';
  return `${where} is not a usable token (${why}): it must be at least ${MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / with = only at the end (RFC 6750 Bearer), or unset for a generated one`;
}

/** Whether `given` is the token (compared in constant time). */
export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (given === null || given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** The token a request carries, by header or cookie. */
export function presentedToken(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return bearer ?? cookieValue(request.headers.cookie, TOKEN_COOKIE);
}

export function hasToken(request: IncomingMessage, token: string): boolean {
  return tokenMatches(presentedToken(request), token);
}

/** The Set-Cookie header that keeps the token in the browser (not readable by scripts). */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/**
 * Why the request's Host or Origin is not this server's, or null. `hosts` are the names the
 * server answers to (`127.0.0.1:8765`, `localhost:8765`, and the --host address with its port).
 */
export function foreignRequest(request: IncomingMessage, hosts: readonly string[]): string | null {
  const host = request.headers.host;
  if (!host || !hosts.includes(host.toLowerCase())) return `the Host "${host ?? ''}" is not this server's`;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return `the Origin "${origin}" is not a URL`;
    }
    if (!hosts.includes(originHost)) return `the Origin "${origin}" is not this server's`;
  }
  if (origin === 'null') return 'an opaque Origin (a sandboxed or file page) is not this server';
  return null;
}

/** The address a server listening on `host` is reached at, as it goes in a URL. */
export function urlHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
}

/** The Host values a server listening on `host`:`port` answers to (this machine's names, and the address itself). */
export function hostsOf(host: string, port: number): string[] {
  return [...new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${urlHost(host)}:${port}`].map((h) => h.toLowerCase()))];
}
