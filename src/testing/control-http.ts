/**
 * The test control (control.ts) as a small HTTP/JSON API, for test suites in any language:
 * `samsa start --control` serves it at `/control/...` on the broker's HTTP listener, to loopback
 * clients only. Every call is a POST with a JSON body (or a GET/DELETE without one) and answers
 * JSON; rules, held requests and recordings get ids that later calls name.
 *
 *   POST /control/inject-error    {api, error, count?, topic?, partition?, clientId?, connectionId?} → {id}
 *   POST /control/latency         {api, ms, count?, clientId?, connectionId?}                       → {id}
 *   POST /control/drop            {api?, count?, clientId?, connectionId?}                           → {id}
 *   DELETE /control/rules/{id}                                                                      → {hits}
 *   POST /control/hold            {api?, clientId?, connectionId?}                                   → {id}
 *   POST /control/holds/{id}/wait {timeoutMs?}                          → the held exchange once one arrived
 *   POST /control/holds/{id}/release, /control/holds/{id}/drop                                      → {}
 *   POST /control/record          {apis?}                                                            → {id}
 *   GET  /control/recordings/{id}?api=Produce                           → {exchanges: [...]}
 *   DELETE /control/recordings/{id}                                                                 → {}
 *   POST /control/disconnect-all, POST /control/reset                                               → {}
 *   GET  /control/connections                                          → {open, accepted}
 *   POST /control/wait/high-watermark    {topic, partition, offset, timeoutMs?}                     → {}
 *   POST /control/wait/group-stable      {groupId, timeoutMs?}                                      → the group
 *   POST /control/wait/committed-offset  {groupId, topic, partition, offset, timeoutMs?}           → {}
 *
 * Errors: 400 `{error}` for a bad call (an unknown API or error name says so), 404 for an unknown
 * id, 408 `{error}` when a wait timed out.
 */
import type { HttpTestControl } from '../broker/broker-services.js';
import type { ApiKeyLike, BrokerControl, HeldRequest, Recording, RecordedExchange, RequestMatch, Rule } from './control.js';

class CallError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

type Json = Record<string, unknown>;

function num(b: Json, k: string, required = false): number | undefined {
  const v = b[k];
  if (v === undefined || v === null) {
    if (required) throw new CallError(400, `'${k}' is required`);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new CallError(400, `'${k}' must be a number`);
  return v;
}

function str(b: Json, k: string, required = false): string | undefined {
  const v = b[k];
  if (v === undefined || v === null) {
    if (required) throw new CallError(400, `'${k}' is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw new CallError(400, `'${k}' must be a string`);
  return v;
}

/** An API or error: a name ('Produce', 'NOT_LEADER_OR_FOLLOWER') or a number. */
function nameOrCode(b: Json, k: string, required = false): ApiKeyLike | undefined {
  const v = b[k];
  if (v === undefined || v === null) {
    if (required) throw new CallError(400, `'${k}' is required`);
    return undefined;
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw new CallError(400, `'${k}' must be a name or a number`);
  // Checked by the control itself (an unknown name is a TypeError that says so).
  return v as ApiKeyLike;
}

function match(b: Json): RequestMatch {
  const clientId = str(b, 'clientId');
  const connectionId = num(b, 'connectionId');
  return { ...(clientId !== undefined ? { clientId } : {}), ...(connectionId !== undefined ? { connectionId } : {}) };
}

/** JSON-safe copies of decoded protocol objects: bigints as strings, bytes as base64. */
function jsonSafe(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint') return x.toString();
    if (x && typeof x === 'object' && (x as { type?: string }).type === 'Buffer' && Array.isArray((x as { data?: unknown }).data)) {
      return Buffer.from((x as { data: number[] }).data).toString('base64');
    }
    return x;
  }));
}

function exchangeJson(x: RecordedExchange): unknown {
  return jsonSafe(x);
}

export class ControlHttp implements HttpTestControl {
  private next = 1;
  private readonly rules = new Map<number, Rule>();
  private readonly holds = new Map<number, HeldRequest>();
  private readonly recordings = new Map<number, Recording>();

  constructor(private readonly control: BrokerControl) {}

  async handle(method: string, path: readonly string[], body: string): Promise<{ status: number; body: unknown }> {
    try {
      let b: Json = {};
      if (body.trim() !== '') {
        const parsed: unknown = JSON.parse(body);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CallError(400, 'the body must be a JSON object');
        b = parsed as Json;
      }
      return { status: 200, body: await this.route(method, path, b) };
    } catch (err) {
      if (err instanceof CallError) return { status: err.status, body: { error: err.message } };
      if (err instanceof SyntaxError) return { status: 400, body: { error: `the body is not JSON: ${err.message}` } };
      const message = (err as Error).message ?? String(err);
      // The control's own refusals (unknown API or error names) and waits that timed out.
      if (err instanceof TypeError) return { status: 400, body: { error: message } };
      if (/timed out|within \d+ ms|not within/i.test(message)) return { status: 408, body: { error: message } };
      return { status: 500, body: { error: message } };
    }
  }

  private id(): number {
    return this.next++;
  }

  private async route(method: string, path: readonly string[], b: Json): Promise<unknown> {
    const [what, idText, action] = path;
    const c = this.control;
    const key = what === 'wait' ? `${method} wait/${idText}` : `${method} ${what}${action ? `/${action}` : ''}`;
    const known = <T>(map: Map<number, T>): T => {
      const v = map.get(Number(idText));
      if (v === undefined) throw new CallError(404, `no ${what.replace(/s$/, '')} ${idText}`);
      return v;
    };
    switch (key) {
      case 'POST inject-error': {
        const partition = num(b, 'partition');
        const topic = str(b, 'topic');
        const rule = c.injectError(nameOrCode(b, 'api', true)!, nameOrCode(b, 'error', true)! as never, {
          ...match(b), count: num(b, 'count') ?? 1, ...(topic !== undefined ? { topic } : {}), ...(partition !== undefined ? { partition } : {}),
        });
        return this.keepRule(rule);
      }
      case 'POST latency':
        return this.keepRule(c.addLatency(nameOrCode(b, 'api', true)!, num(b, 'ms', true)!, { ...match(b), ...(num(b, 'count') !== undefined ? { count: num(b, 'count') } : {}) }));
      case 'POST drop': {
        const api = nameOrCode(b, 'api');
        return this.keepRule(c.dropNextRequest({ ...match(b), ...(api !== undefined ? { apiKey: api } : {}), count: num(b, 'count') ?? 1 }));
      }
      case 'DELETE rules': {
        const rule = known(this.rules);
        rule.remove();
        this.rules.delete(Number(idText));
        return { hits: rule.hits };
      }
      case 'POST hold': {
        const api = nameOrCode(b, 'api');
        const id = this.id();
        const held = c.holdNextRequest({ ...match(b), ...(api !== undefined ? { apiKey: api } : {}) });
        held.arrived.catch(() => undefined);
        this.holds.set(id, held);
        return { id };
      }
      case 'POST holds/wait': {
        const held = known(this.holds);
        const timeoutMs = num(b, 'timeoutMs') ?? 10_000;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new CallError(408, `no request was held within ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          return exchangeJson(await Promise.race([held.arrived, timeout]));
        } finally {
          clearTimeout(timer);
        }
      }
      case 'POST holds/release':
        known(this.holds).release();
        this.holds.delete(Number(idText));
        return {};
      case 'POST holds/drop':
        known(this.holds).drop();
        this.holds.delete(Number(idText));
        return {};
      case 'POST record': {
        const apis = b.apis;
        if (apis !== undefined && !Array.isArray(apis)) throw new CallError(400, "'apis' must be a list");
        const id = this.id();
        this.recordings.set(id, c.record(apis ? { apiKeys: apis as (string | number)[] as never } : {}));
        return { id };
      }
      case 'GET recordings':
        return { exchanges: known(this.recordings).exchanges.map(exchangeJson) };
      case 'DELETE recordings':
        known(this.recordings).stop();
        this.recordings.delete(Number(idText));
        return {};
      case 'POST disconnect-all':
        c.disconnectAll();
        return {};
      case 'POST reset':
        c.reset();
        for (const r of this.recordings.values()) r.stop();
        this.rules.clear();
        this.holds.clear();
        this.recordings.clear();
        return {};
      case 'GET connections':
        return { open: c.connectionCount, accepted: c.connectionsAccepted };
      case 'POST wait/high-watermark':
        await c.waitForHighWatermark(str(b, 'topic', true)!, num(b, 'partition', true)!, num(b, 'offset', true)!, { timeoutMs: num(b, 'timeoutMs') ?? 10_000 });
        return {};
      case 'POST wait/group-stable':
        return jsonSafe(await c.waitForGroupStable(str(b, 'groupId', true)!, { timeoutMs: num(b, 'timeoutMs') ?? 10_000 }));
      case 'POST wait/committed-offset':
        await c.waitForCommittedOffset(str(b, 'groupId', true)!, str(b, 'topic', true)!, num(b, 'partition', true)!, num(b, 'offset', true)!, { timeoutMs: num(b, 'timeoutMs') ?? 10_000 });
        return {};
      default:
        throw new CallError(404, `no control call ${method} /control/${path.join('/')}`);
    }
  }

  private keepRule(rule: Rule): { id: number } {
    const id = this.id();
    this.rules.set(id, rule);
    return { id };
  }
}
