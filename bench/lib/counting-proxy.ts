/**
 * A forward HTTP proxy that counts the bytes it passes to the browser, as they travel (compressed
 * when the server compressed them): what a window really receives. Chromium sends even loopback
 * traffic through it with `--proxy-bypass-list=<-loopback>`.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  /** `--proxy-server` value. */
  readonly address: string;
  /** Bytes of responses whose content type is not an image, since the last reset. */
  readonly bytes: number;
  /** The same by path (without the query), for seeing where they go. */
  readonly byPath: ReadonlyMap<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(): Promise<CountingProxy> {
  let bytes = 0;
  const byPath = new Map<string, number>();
  const server: Server = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? '/');
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: incoming.method, headers: incoming.headers },
      (response) => {
        const image = String(response.headers['content-type'] ?? '').startsWith('image/');
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.on('data', (chunk: Buffer) => {
          if (!image) {
            bytes += chunk.length;
            byPath.set(target.pathname, (byPath.get(target.pathname) ?? 0) + chunk.length);
          }
          outgoing.write(chunk);
        });
        response.on('end', () => outgoing.end());
      },
    );
    upstream.on('error', () => outgoing.destroy());
    // The browser went away (an event stream closed): let the server know.
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    get bytes() {
      return bytes;
    },
    byPath,
    reset() {
      bytes = 0;
      byPath.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
