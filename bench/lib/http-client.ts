/**
 * HTTP calls for the benches over node:http with one keep-alive agent: lighter on the client than
 * fetch, so that on two shared cores the broker, not the load generator, sets the rate.
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function httpCall(method: string, url: URL | string, body?: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) };
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Ends the keep-alive connections (so the bench process can exit). */
export function closeHttpClient(): void {
  agent.destroy();
}
