import { createServer } from 'node:http';
import { startCountingProxy } from './lib/counting-proxy';
const target = createServer((req, res) => { res.writeHead(303, { location: '/', 'content-length': 0 }).end(''); });
await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
const port = (target.address() as { port: number }).port;
const proxy = await startCountingProxy();
console.log(proxy.address, port);
const { execSync } = await import('node:child_process');
try { console.log(execSync(`curl -s -i -x ${proxy.address} http://127.0.0.1:${port}/x`).toString()); } catch (e) { console.log('curl failed', String(e)); }
await proxy.close(); target.close();
