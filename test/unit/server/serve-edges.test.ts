/**
 * The edges of the real `mnemo serve` an attacker-minded review probed, each asked over real HTTP
 * exactly as sent (raw paths, raw bodies) and checked by what comes back: a malformed path is a
 * 400 and no stack trace; the token's redirect goes only to the app itself; a session that is not
 * there (or could not be one) is a 404 on every route that names one, the event stream included;
 * a body too large is a 413, whether announced or streamed; JSON nested too deep or with a
 * `__proto__` key is a 400 on every route, the workflow import included.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/fakes';
import { startMnemo, type StartedMnemo } from '../../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-serve-edges-'));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let served: StartedMnemo;
let origin = '';
let token = '';

beforeAll(async () => {
  served = startMnemo(['serve', '--port', '0', '--data-dir', join(scratch, 'data')], { env: { DISPLAY: ':941' } });
  await waitFor(() => served.child.exitCode !== null || /Mnemo is at /.test(served.output().stdout), 'mnemo serve to start', 300_000);
  const printed = /Mnemo is at (http:\/\/[^/]+)\/\?token=(\S+)/.exec(served.output().stdout);
  if (!printed) throw new Error(`mnemo serve did not start: ${served.output().stderr}`);
  [, origin, token] = printed as unknown as [string, string, string];
}, 300_000);

afterAll(async () => {
  if (served && served.child.exitCode === null) {
    served.child.kill('SIGTERM');
    await served.result;
  }
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * One request with the path exactly as given (no URL normalising: `/.//evil.com` stays so) and
 * the token as a bearer header unless told otherwise. `body` is sent as it is; `chunked` leaves
 * out Content-Length, so the server only learns the size as the bytes come.
 */
function ask(method: string, path: string, options: { body?: string | Buffer; chunked?: boolean; withToken?: boolean } = {}): Promise<Answer> {
  const { host, hostname, port } = new URL(origin);
  const headers: Record<string, string> = { host };
  if (options.withToken !== false) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.body !== undefined && !options.chunked) headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    // The path as an option, not in a URL: a URL would be tidied (`/.//evil.com` to `//evil.com`).
    const request = httpRequest({ hostname, port, path, method, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    request.on('error', reject);
    if (options.body === undefined) request.end();
    else if (!options.chunked) request.end(options.body);
    else {
      // A megabyte at a time, as a client streaming a body would.
      const body = Buffer.from(options.body);
      const step = 1024 * 1024;
      for (let at = 0; at < body.length; at += step) request.write(body.subarray(at, at + step));
      request.end();
    }
  });
}

const errorOf = (answer: Answer) => (JSON.parse(answer.body) as { error: string }).error;

describe('mnemo serve at its edges', { timeout: 120_000 }, () => {
  it('answers a malformed percent-encoding in a path with 400, in the app and in the API, and prints no stack trace', async () => {
    for (const path of ['/%E0%A4%A.js', '/assets/%ZZ.css', '/api/sessions/%E0%A4%A']) {
      const answer = await ask('GET', path);
      expect(answer.status, path).toBe(400);
      expect(errorOf(answer), path).toMatch(/not valid percent-encoding/);
    }
    // The server is still there and said nothing about an internal error.
    expect((await ask('GET', '/api/version')).status).toBe(200);
    expect(served.output().stderr).not.toMatch(/internal error|URIError|\n\s+at /);
  });

  it('redirects the printed URL to the app itself, never to a path taken from the request', async () => {
    for (const path of [`/.//evil.com?token=${token}`, `//evil.com/?token=${token}`, `/%2F%2Fevil.com?token=${token}`, `/\\evil.com?token=${token}`, `/sessions?token=${token}&view=list`]) {
      const answer = await ask('GET', path, { withToken: false });
      expect(answer.status, path).toBe(303);
      const location = String(answer.headers.location);
      expect(location, path).toMatch(/^\/(\?|$)/);
      expect(location, path).not.toContain('evil');
    }
    // Other parameters ride along to the app; the token does not.
    expect((await ask('GET', `/?token=${token}&view=list`, { withToken: false })).headers.location).toBe('/?view=list');
  });

  it('answers 404 for a session that is not there, and for an id that could not be one, on every route that names a session', async () => {
    const unknown = '20990101-000000-abcdef';
    for (const id of [unknown, '..%2F..%2Fetc', '%2Fetc%2Fpasswd']) {
      for (const [method, path] of [
        ['GET', `/api/sessions/${id}`],
        ['GET', `/api/sessions/${id}/memory`],
        ['GET', `/api/sessions/${id}/files/screenshots/step-0001.jpg`],
        ['GET', `/api/sessions/${id}/events`],
        ['GET', `/api/sessions/${id}/report.html`],
        ['GET', `/api/sessions/${id}/workflow-params`],
        ['DELETE', `/api/sessions/${id}`],
      ] as const) {
        const answer = await ask(method, path);
        expect(answer.status, `${method} ${path}`).toBe(404);
      }
    }
    for (const session of [unknown, '../../../etc', '/etc', '..']) {
      const answer = await ask('GET', `/api/events?session=${encodeURIComponent(session)}`);
      expect(answer.status, session).toBe(404);
      expect(answer.headers['content-type'], session).toMatch(/^application\/json/);
      expect(errorOf(answer)).toContain(session);
    }
    // A session that is there streams (the sample session a new data directory offers).
    const [sample] = JSON.parse((await ask('GET', '/api/sessions')).body) as Array<{ id: string }>;
    const stream = await ask('GET', `/api/events?session=${sample?.id ?? ''}`);
    expect(stream.status).toBe(200);
    expect(stream.body).toContain('"type":"run-started"');
  });

  it('lists the sessions beside a damaged one and says which, once, in its log', async () => {
    const damaged = join(scratch, 'data', 'sessions', '20200101-000000-abcdef');
    writeFileSync(damaged, 'a file where a session folder should be');
    for (let i = 0; i < 2; i += 1) {
      const listed = await ask('GET', '/api/sessions');
      expect(listed.status).toBe(200);
      expect((JSON.parse(listed.body) as unknown[]).length).toBeGreaterThan(0);
    }
    const line = `mnemo serve: warning: session 20200101-000000-abcdef: ${damaged} is not a folder (a file or a link where a session folder should be); not listed`;
    await waitFor(() => served.output().stderr.includes(line), 'the warning in the log');
    expect(served.output().stderr.split(line)).toHaveLength(2);
  });

  it('answers 413 to a body larger than the route takes, announced or streamed, and goes on serving', async () => {
    const tenMegabytes = JSON.stringify({ task: 'x'.repeat(10 * 1024 * 1024) });
    for (const chunked of [false, true]) {
      const answer = await ask('POST', '/api/runs', { body: tenMegabytes, chunked });
      expect(answer.status, chunked ? 'streamed' : 'announced').toBe(413);
      expect(errorOf(answer)).toBe('the request body is larger than 1 MB');
    }
    expect((await ask('GET', '/api/version')).status).toBe(200);
  });

  it('answers 400 to JSON nested 100,000 deep, or with a __proto__ key, on every route, the workflow import included', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const bodies = [
      ['/api/workflows/import', `{"file":{"format":"mnemo-workflow-export","workflow":${deep}}}`],
      ['/api/workflows/import', `{"file":{"a":${deep}}}`],
      ['/api/workflows/import', deep],
      ['/api/runs', `{"task":${deep}}`],
      ['/api/facts', `{"subject":"user","scope":"cross-product","keyword":"k","description":"d","values":${deep}}`],
    ] as const;
    for (const [path, body] of bodies) {
      const answer = await ask('POST', path, { body });
      expect(answer.status, path).toBe(400);
      expect(errorOf(answer), path).toBe('the request body is not JSON Mnemo takes: it nests deeper than 64 levels');
    }
    const hostile = await ask('POST', '/api/facts', { body: '{"subject":"user","scope":"cross-product","keyword":"k","description":"d","values":["v"],"__proto__":{"admin":true}}' });
    expect(hostile.status).toBe(400);
    expect(errorOf(hostile)).toBe('the request body is not JSON Mnemo takes: it has a key "__proto__", which is not accepted');
    expect(served.output().stderr).not.toMatch(/Maximum call stack|internal error/);
  });
});
