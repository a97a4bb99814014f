/**
 * The HTTP listener (`samsa.http.listeners`): /metrics, /health/live, /health/ready and the web
 * console, served from inside the broker process.
 *
 * Hostile input is answered, never fatal: request headers over 16 KiB get 431, a malformed
 * request 400, methods other than GET/HEAD/POST 405, bodies over 64 KiB 413, paths with `..`,
 * NUL or undecodable escapes 400; a handler that throws answers 500 and is logged. Slow clients
 * are cut by headersTimeout/requestTimeout, and at most 256 connections are accepted at a time.
 * Nothing on this listener reaches the Kafka listeners' code paths except through the broker's
 * own methods. State-changing requests (POST) must carry the page's token and, when the browser
 * sends an Origin, come from this listener's own origin. A listener on a loopback address answers
 * only requests naming a loopback host (DNS rebinding).
 *
 * Authentication: see auth.ts (basic, against the SASL users, when the broker has SASL).
 * /health/* never asks (container health checks carry no credentials; they reveal nothing).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TlsOptions } from 'node:tls';
import type { Socket } from 'node:net';
import { createHmac, randomBytes } from 'node:crypto';
import type { HttpService } from '../broker/broker-services.js';
import type { ListenerSecurity } from '../security/listener-security.js';
import type { HttpBroker } from './http-broker.js';
import { namedLogger, type Logger } from '../logger.js';
import { KafkaApiError } from '../errors.js';
import { HttpAuthenticator } from './auth.js';
import { httpTlsOptions } from './tls.js';
import { serveMetrics, startEventLoopMonitor, stopEventLoopMonitor } from './metrics-page.js';
import { liveness, readiness } from './health.js';
import { consoleRoute } from './console/routes.js';
import { isRegistryPath, registryAclDenial, sendRegistryError, serveRegistry } from './schema-registry-routes.js';
import { forwardToRegistryLeader } from './schema-registry-forward.js';
import { isRestProxyRequest, serveRestProxy } from './rest-proxy/routes.js';
import { sendJson, sendText } from './respond.js';
import { BadRequest, type HttpContext } from './context.js';
export { BadRequest, type HttpContext } from './context.js';

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_BODY_BYTES = 64 * 1024;
/** Schema Registry and REST Proxy bodies carry whole schemas and batches of records. */
const MAX_API_BODY_BYTES = 8 * 1024 * 1024;
const MAX_CONNECTIONS = 256;

export interface HttpListenerSpec {
  host: string;
  port: number;
  /** https: the TLS options (from the broker's ssl.* settings); null for http. */
  tls: TlsOptions | null;
}

/**
 * Parses `samsa.http.listeners` entries (validated by the setting's check); `tls()` gives the TLS
 * options when an entry is https (asked only then).
 */
export function parseHttpListeners(entries: readonly string[], tls: () => TlsOptions): HttpListenerSpec[] {
  const out: HttpListenerSpec[] = [];
  for (const e of entries) {
    const m = /^(https?):\/\/(\[[0-9a-fA-F:.]+\]|[^:/\s]*):(\d+)\/?$/.exec(e.trim());
    if (!m) throw new Error(`not an HTTP listener: ${e}`);
    out.push({ host: m[2].replace(/^\[|\]$/g, '') || '0.0.0.0', port: Number(m[3]), tls: m[1] === 'https' ? tls() : null });
  }
  return out;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The host name of a Host header (`[::1]:9644` → `::1`, `localhost:9644` → `localhost`). */
function hostOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** Splits and decodes a request path; refuses traversal, NUL and bad escapes. */
export function pathSegments(rawPath: string): string[] {
  const segments: string[] = [];
  for (const part of rawPath.split('/')) {
    if (part === '') continue;
    let s: string;
    try {
      s = decodeURIComponent(part);
    } catch {
      throw new BadRequest(400, 'malformed percent-encoding in path');
    }
    // A decoded segment may hold '/' (group ids can), but never a '.' or '..' step.
    if (s.includes('\u0000') || s.split(/[\\/]/).some((step) => step === '.' || step === '..')) throw new BadRequest(400, 'path traversal refused');
    segments.push(s);
  }
  return segments;
}

async function readBody(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max) throw new BadRequest(413, 'request body too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new BadRequest(413, 'request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class HttpListener {
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  /** The bound listeners' base URLs (http://host:port), with the real port when 0 was asked. */
  readonly urls: string[] = [];
  private readonly csrf: string;
  private ready = false;
  /** One debug line per HTTP request (method, path, status, duration). */
  private readonly accessLog: Logger;
  private stopped = false;

  private constructor(private readonly broker: HttpBroker, private readonly auth: HttpAuthenticator, private readonly logger: Logger, private readonly consoleEnabled: boolean, private readonly restProxyEnabled: boolean) {
    this.csrf = createHmac('sha256', randomBytes(32)).update('samsa-console').digest('base64url');
    this.accessLog = namedLogger(logger, 'samsa.http');
  }

  /** Binds every listener (serving 503 on readiness until markReady). */
  static async start(opts: { broker: HttpBroker; listeners: HttpListenerSpec[]; auth: HttpAuthenticator; logger: Logger; console: boolean; restProxy?: boolean }): Promise<HttpListener> {
    const l = new HttpListener(opts.broker, opts.auth, opts.logger, opts.console, opts.restProxy ?? false);
    startEventLoopMonitor();
    try {
      for (const spec of opts.listeners) await l.bind(spec);
    } catch (err) {
      await l.stop();
      throw err;
    }
    return l;
  }

  markReady(): void {
    this.ready = true;
  }

  get isReady(): boolean {
    return this.ready;
  }

  private async bind(spec: HttpListenerSpec): Promise<void> {
    const loopback = isLoopback(spec.host);
    const httpOptions = { maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 };
    const scheme = spec.tls ? 'https' : 'http';
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      void this.serve(req, res, loopback, scheme);
    };
    const server: Server = spec.tls ? createHttpsServer({ ...spec.tls, ...httpOptions }, handler) : createServer(httpOptions, handler);
    // TLS handshake failures (a plain-HTTP client, garbage): that socket only.
    server.on('tlsClientError', (err: Error, socket: Socket) => {
      this.logger.debug(`https: TLS handshake with ${socket.remoteAddress ?? '?'} failed: ${err.message}`);
      socket.destroy();
    });
    server.maxConnections = MAX_CONNECTIONS;
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    // CONNECT (tunnels) is not served; without a listener Node would just drop the socket.
    server.on('connect', (_req: IncomingMessage, socket: Socket) => {
      socket.end('HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
      this.logger.debug(`http: ${status} for ${socket.remoteAddress ?? '?'} (${err.code ?? err.message})`);
      if (socket.writable && !(socket as Socket & { _httpMessage?: unknown })._httpMessage) {
        socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      } else {
        socket.destroy();
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: spec.port, host: spec.host }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.logger.warn(`http listener: ${err.message}`));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : spec.port;
    const host = spec.host === '0.0.0.0' ? '127.0.0.1' : spec.host.includes(':') ? `[${spec.host}]` : spec.host;
    this.servers.push(server);
    this.urls.push(`${scheme}://${host}:${port}`);
  }

  private async serve(req: IncomingMessage, res: ServerResponse, loopback: boolean, scheme: 'http' | 'https'): Promise<void> {
    res.on('error', (err) => this.logger.debug(`http response: ${err.message}`));
    if (this.accessLog.level === 'debug') {
      const started = performance.now();
      res.once('finish', () => this.accessLog.debug(`http ${req.method} ${req.url} ${res.statusCode}`, {
        method: req.method, path: req.url, status: res.statusCode, remote: req.socket.remoteAddress,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      }));
    }
    try {
      // DNS rebinding: a page of another site whose name now points at 127.0.0.1 sends its own
      // name as Host; a loopback listener answers only loopback names.
      if (loopback && !isLoopback(hostOf(req.headers.host ?? ''))) throw new BadRequest(421, 'this listener answers only loopback host names (localhost, 127.0.0.1, [::1])');
      const method = req.method;
      const raw = req.url ?? '/';
      if (!raw.startsWith('/') || raw.length > 8192) throw new BadRequest(400, 'bad request target');
      const q = raw.indexOf('?');
      const segments = pathSegments(q >= 0 ? raw.slice(0, q) : raw);
      const query = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '');
      const first = segments[0] ?? '';
      if (first === 'control' && this.broker.testControl) return await this.serveControl(req, res, method as string, segments.slice(1));
      const registry = this.broker.schemaRegistry && isRegistryPath(segments) ? this.broker.schemaRegistry : null;
      const restProxy = this.restProxyEnabled && isRestProxyRequest(segments, req);
      if (restProxy && method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE' && method !== 'PATCH') {
        res.setHeader('Allow', 'GET, POST, PUT, PATCH, DELETE');
        throw new BadRequest(405, 'method not allowed');
      }
      if (registry && method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE') {
        res.setHeader('Allow', 'GET, POST, PUT, DELETE');
        throw new BadRequest(405, 'method not allowed');
      }
      if (!registry && !restProxy && method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
        res.setHeader('Allow', 'GET, HEAD, POST');
        throw new BadRequest(405, 'method not allowed');
      }
      if (first === 'health' && segments.length === 2 && method !== 'POST') {
        if (segments[1] === 'live') return liveness(this.broker, res);
        if (segments[1] === 'ready') return readiness(this.broker, this.ready, res);
      }
      const user = await this.auth.authenticate(req.headers.authorization);
      if (user === null) {
        res.setHeader('WWW-Authenticate', 'Basic realm="samsa", charset="UTF-8"');
        throw new BadRequest(401, 'authentication required (a SASL PLAIN or SCRAM user)');
      }
      if (first === 'metrics' && segments.length === 1 && method !== 'POST') return await serveMetrics(this.broker, res, method === 'HEAD');
      if (restProxy || registry) {
        this.checkReady(res);
        // APIs, not pages: no form token. A browser page of another site cannot send these: a
        // cross-origin request names its Origin, and one with a JSON body or PUT/DELETE needs a
        // CORS preflight this listener never grants.
        const origin = req.headers.origin;
        if (origin !== undefined && origin !== `${scheme}://${req.headers.host}`) throw new BadRequest(403, 'cross-origin request refused');
        if (registry) {
          const denied = registryAclDenial(this.broker, user, req.socket.remoteAddress ?? '', method as string, segments);
          if (denied) return sendRegistryError(res, denied);
        }
        const body = method === 'GET' || method === 'DELETE' ? '' : await readBody(req, MAX_API_BODY_BYTES);
        if (body !== '' && !/json|octet-stream/i.test(req.headers['content-type'] ?? 'application/json')) throw new BadRequest(415, 'the body must be JSON (application/json, or the API\'s own JSON media type)');
        if (restProxy) {
          const baseUrl = `${scheme}://${req.headers.host ?? '127.0.0.1'}`;
          return await serveRestProxy({ broker: this.broker, req, res, method: method as string, segments, query, body, user, baseUrl });
        }
        const request = { method: method as string, segments, query, body, res };
        return await serveRegistry(registry!, request, (r) => forwardToRegistryLeader(this.broker, req, raw, r));
      }
      if (!this.consoleEnabled) throw new BadRequest(404, 'not found');
      this.checkReady(res);
      let form: URLSearchParams | null = null;
      if (method === 'POST') {
        const origin = req.headers.origin;
        if (origin !== undefined && origin !== `${scheme}://${req.headers.host}`) throw new BadRequest(403, 'cross-origin form refused');
        form = new URLSearchParams(await readBody(req));
        if (form.get('csrf') !== this.csrf) throw new BadRequest(403, 'missing or stale form token: reload the page');
      }
      const ctx: HttpContext = { broker: this.broker, req, res, method: method as HttpContext['method'], segments, query, form, user, csrf: this.csrf };
      await consoleRoute(ctx);
    } catch (err) {
      this.fail(res, err);
    }
  }

  /** 503 (with Retry-After) until the broker serves. */
  private checkReady(res: ServerResponse): void {
    if (this.ready) return;
    res.setHeader('Retry-After', '1');
    throw new BadRequest(503, 'the broker is starting');
  }

  /** `/control/...` (samsa start --control): loopback clients only, JSON in and out. */
  private async serveControl(req: IncomingMessage, res: ServerResponse, method: string, path: string[]): Promise<void> {
    const remote = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (!isLoopback(remote)) throw new BadRequest(403, 'the test control answers loopback clients only');
    if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') {
      res.setHeader('Allow', 'GET, POST, DELETE');
      throw new BadRequest(405, 'method not allowed');
    }
    if (req.headers.origin !== undefined) throw new BadRequest(403, 'the test control takes no browser requests');
    const body = method === 'POST' ? await readBody(req) : '';
    const out = await this.broker.testControl!.handle(method, path, body);
    sendJson(res, out.status, out.body);
  }

  private fail(res: ServerResponse, err: unknown): void {
    let status = 500;
    let message = 'internal error';
    if (err instanceof BadRequest) {
      status = err.status;
      message = err.message;
    } else if (err instanceof KafkaApiError) {
      status = 400;
      message = err.message;
    } else {
      this.logger.error('http request failed', err);
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendText(res, status, `${status} ${message}\n`);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    stopEventLoopMonitor();
    // The REST proxy's v2 consumer instances (their heartbeat and expiry timers), if any was made.
    if (this.restProxyEnabled) (await import('./rest-proxy/v2-consumers.js')).stopRestConsumers(this.broker);
    const closing = this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    for (const s of this.sockets) s.destroy();
    await Promise.all(closing);
  }
}


/**
 * The broker's HTTP listener as the entry points start it (Broker.start's `http`): the addresses
 * of samsa.http.listeners (none: no listener), the broker's SASL users for basic authentication.
 * The default address already taken (another broker on this host) serves Kafka without HTTP.
 */
export async function startBrokerHttp(broker: HttpBroker, security: ReadonlyMap<string, ListenerSecurity>): Promise<HttpService | null> {
  const config = broker.rawConfig;
  const listeners = parseHttpListeners(config['samsa.http.listeners'], () => httpTlsOptions(config));
  if (listeners.length === 0) return null;
  const auth = new HttpAuthenticator(security, (user, mechanism) => broker.cluster.store.readScramCredential(user, mechanism));
  try {
    return await HttpListener.start({ broker, listeners, auth, logger: broker.logger, console: config['samsa.http.console.enable'], restProxy: config['samsa.rest.proxy.enable'] });
  } catch (err) {
    if (config.explicit['samsa.http.listeners'] || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    broker.logger.warn(`HTTP listener not started: ${(err as Error).message} (set samsa.http.listeners to another address, or empty to turn it off)`);
    return null;
  }
}
