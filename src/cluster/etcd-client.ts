/**
 * Connecting to etcd with the `etcd3` client, the way a broker needs it.
 *
 * - Every unary call gets a deadline (`requestTimeoutMs`): without one, a call to an etcd that is
 *   paused or cut off would wait forever, and the broker could not tell "slow" from "gone".
 * - etcd3's own fault handling is replaced. Its default per-host circuit breaker stops calling a
 *   host for 5 s after three failures, which would keep a broker away from an etcd that has just
 *   restarted; its global retry hides which endpoint failed. Instead each call tries each endpoint
 *   at most once, and the callers that must retry (start-up, keep-alive, the controller) do so on
 *   their own schedule.
 * - Start-up (`connectEtcd`) retries until `samsa.etcd.connect.timeout.ms`, logging each failure
 *   with the endpoints it tried, then fails with one clear error.
 */
import { Etcd3, isRecoverableError, type IOptions } from 'etcd3';
import type { Logger } from '../logger.js';

export interface EtcdConnectOptions {
  /** Client URLs, e.g. http://127.0.0.1:2379 (samsa.etcd.endpoints). */
  endpoints: string[];
  /** samsa.etcd.connect.timeout.ms */
  connectTimeoutMs: number;
  /** Deadline of each unary call (default 5 s). */
  requestTimeoutMs?: number;
  logger?: Logger;
}

export class EtcdUnreachableError extends Error {
  constructor(readonly endpoints: string[], readonly timeoutMs: number, readonly lastError: Error | null) {
    super(
      `could not reach etcd at ${endpoints.join(', ')} within ${timeoutMs} ms (samsa.etcd.connect.timeout.ms)` +
        (lastError ? `: ${lastError.message}` : ''),
    );
    this.name = 'EtcdUnreachableError';
  }
}

type Policy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/** Runs the call once; the connection pool then tries the next host itself only if this one refused. */
function passThrough(): Policy {
  return { execute: (fn: (ctx: unknown) => unknown) => Promise.resolve().then(() => fn({ signal: new AbortController().signal, attempt: 0 })) } as unknown as Policy;
}

/** Tries again on another endpoint when the call failed in a way etcd3 calls recoverable (connection-level). */
function oncePerHost(hosts: number): Policy {
  return {
    execute: async (fn: (ctx: unknown) => unknown) => {
      let last: unknown;
      for (let attempt = 0; attempt < Math.max(1, hosts); attempt++) {
        try {
          return await fn({ signal: new AbortController().signal, attempt });
        } catch (e) {
          last = e;
          if (!(e instanceof Error) || !isRecoverableError(e)) throw e;
        }
      }
      throw last;
    },
  } as unknown as Policy;
}

export function validateEndpoints(endpoints: string[]): string[] {
  const out: string[] = [];
  for (const raw of endpoints) {
    const e = raw.trim();
    if (!e) continue;
    let url: URL;
    try {
      url = new URL(e);
    } catch {
      throw new Error(`samsa.etcd.endpoints: '${e}' is not a URL (expected http://host:port)`);
    }
    if (url.protocol !== 'http:') throw new Error(`samsa.etcd.endpoints: '${e}': only http:// endpoints are supported`);
    if (!url.port) throw new Error(`samsa.etcd.endpoints: '${e}' has no port`);
    out.push(`http://${url.hostname}:${url.port}`);
  }
  if (out.length === 0) throw new Error('samsa.etcd.endpoints: no endpoint given');
  return out;
}

export function createEtcdClient(endpoints: string[], requestTimeoutMs = 5000): Etcd3 {
  return new Etcd3({
    hosts: endpoints,
    // Streams (watch, lease keep-alive) have no deadline: they live as long as the client.
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
    faultHandling: {
      host: () => passThrough(),
      global: oncePerHost(endpoints.length),
    },
    grpcOptions: {
      // Reconnect quickly after an etcd restart (gRPC's default backoff grows to 120 s).
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
    },
  });
}

/**
 * A client that has answered one read. Retries every 100 ms → 1 s until `connectTimeoutMs`, then
 * throws EtcdUnreachableError naming the endpoints.
 */
export async function connectEtcd(opts: EtcdConnectOptions): Promise<Etcd3> {
  const endpoints = validateEndpoints(opts.endpoints);
  const requestTimeoutMs = opts.requestTimeoutMs ?? 5000;
  const client = createEtcdClient(endpoints, requestTimeoutMs);
  const started = Date.now();
  const deadline = started + opts.connectTimeoutMs;
  let delay = 100;
  let lastError: Error | null = null;
  for (let attempt = 1; ; attempt++) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    try {
      // Any key will do: a read succeeds only when a member with a leader answers.
      await client.get('samsa-connect-probe').options({ deadline: Date.now() + Math.min(left, requestTimeoutMs) }).exec();
      if (attempt > 1) opts.logger?.info(`etcd at ${endpoints.join(', ')} reachable after ${Date.now() - started} ms`);
      return client;
    } catch (e) {
      lastError = e instanceof Error ? e : new Error(String(e));
      opts.logger?.warn(
        `etcd at ${endpoints.join(', ')} not reachable (attempt ${attempt}: ${lastError.message.split('\n')[0]}); ` +
          `retrying for ${Math.max(0, deadline - Date.now())} ms more`,
      );
    }
    const wait = Math.min(delay, deadline - Date.now());
    if (wait <= 0) break;
    await new Promise((r) => setTimeout(r, wait));
    delay = Math.min(delay * 2, 1000);
  }
  client.close();
  throw new EtcdUnreachableError(endpoints, opts.connectTimeoutMs, lastError);
}
