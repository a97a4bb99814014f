/**
 * Runs scenarios × clients against one target. Clients run in parallel (each on its own topics
 * and groups); within a client, scenarios run one after another, each with a deadline. A
 * scenario's `prepare` runs for every client before any scenario's `run` (cross-client reads).
 * After a failure the client's driver is replaced, so one stuck scenario cannot spoil the next.
 */
import { SCENARIOS, Fail, type Ctx, type Scenario } from '../scenarios.js';
import { confluent2Driver, confluentDriver, kafkaPython3Driver, kafkaPythonDriver } from '../clients/python.js';
import { kafkajsDriver, platformaticDriver } from '../clients/node.js';
import { kcatDriver } from '../clients/kcat.js';
import { javaDriver } from '../clients/java.js';
import { kafkaCliDriver } from '../clients/kafka-cli.js';
import { Harness } from './harness.js';
import type { Target } from './targets.js';
import type { ClientName, Driver, Outcome } from './types.js';

export interface SuiteResult {
  target: { name: string; description: string };
  runId: string;
  startedAt: string;
  durationMs: number;
  clients: Partial<Record<ClientName, string>>;
  scenarios: { id: string; behaviour: string }[];
  /** results[scenario][client] */
  results: Record<string, Partial<Record<ClientName, Outcome>>>;
}

export interface SuiteOptions {
  target: Target;
  clients: ClientName[];
  scenarios?: string[];
  runId: string;
  log?: (line: string) => void;
  /** Default per-scenario deadline (a scenario may ask for more). */
  scenarioTimeoutMs?: number;
}

export function makeDriver(client: ClientName, bootstrap: string, runId: string): Promise<Driver> {
  switch (client) {
    case 'kafkajs': return kafkajsDriver(bootstrap, runId);
    case 'platformatic': return platformaticDriver(bootstrap, runId);
    case 'kcat': return kcatDriver(bootstrap);
    case 'confluent': return confluentDriver(bootstrap);
    case 'kafka-python': return kafkaPythonDriver(bootstrap);
    case 'confluent2': return confluent2Driver(bootstrap);
    case 'kafka-python3': return kafkaPython3Driver(bootstrap);
    case 'java': return javaDriver(bootstrap);
    case 'kafka-cli': return kafkaCliDriver(bootstrap);
  }
}

export function selectScenarios(ids?: string[]): Scenario[] {
  if (!ids || ids.length === 0) return SCENARIOS;
  const unknown = ids.filter((id) => !SCENARIOS.some((s) => s.id === id || s.id.startsWith(`${id}-`)));
  if (unknown.length) throw new Error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  // "compression" selects every compression-<codec>.
  return SCENARIOS.filter((s) => ids.some((id) => s.id === id || s.id.startsWith(`${id}-`)));
}

async function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((_, rej) => { t = setTimeout(() => rej(new Fail(`${what}: timed out after ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(t);
  }
}

const sanitize = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '-');

export async function runSuite(o: SuiteOptions): Promise<SuiteResult> {
  const started = Date.now();
  const scenarios = selectScenarios(o.scenarios);
  const log = o.log ?? (() => {});
  const defaultTimeout = o.scenarioTimeoutMs ?? 45_000;
  const result: SuiteResult = {
    target: { name: o.target.name, description: o.target.description },
    runId: o.runId,
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    clients: {},
    scenarios: scenarios.map((s) => ({ id: s.id, behaviour: s.behaviour })),
    results: Object.fromEntries(scenarios.map((s) => [s.id, {}])),
  };
  const harnesses = new Map<string, Harness>();
  const harnessFor = (bs: string) => {
    let h = harnesses.get(bs);
    if (!h) harnesses.set(bs, (h = new Harness(bs)));
    return h;
  };
  const locks = new Map<string, Promise<unknown>>();
  const exclusive = <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const prev = locks.get(name) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(fn);
    locks.set(name, next.catch(() => {}));
    return next;
  };
  const shared = new Map<string, unknown>();

  interface ClientState {
    client: ClientName;
    driver: Driver | null;
    others: Map<string, Promise<Driver>>;
    error?: string;
  }
  const states: ClientState[] = o.clients.map((client) => ({ client, driver: null, others: new Map() }));

  const closeAll = async (st: ClientState) => {
    const ds = [st.driver, ...(await Promise.allSettled([...st.others.values()])).map((r) => (r.status === 'fulfilled' ? r.value : null))];
    st.driver = null;
    st.others.clear();
    await Promise.allSettled(ds.filter((d): d is Driver => d !== null).map((d) => deadline(d.close(), 20_000, `${st.client} close`)));
  };
  const connect = async (st: ClientState) => {
    try {
      st.driver = await deadline(makeDriver(st.client, o.target.bootstrap, o.runId), 30_000, `${st.client} start`);
      result.clients[st.client] = st.driver.version;
      st.error = undefined;
    } catch (e) {
      st.error = `client unavailable: ${(e as Error).message.split('\n')[0]}`;
      result.clients[st.client] ??= st.error;
    }
  };
  const ctxFor = (st: ClientState, observed: Record<string, unknown>): Ctx => ({
    target: o.target,
    client: st.client,
    runId: o.runId,
    topic: (purpose) => sanitize(`compat-${o.runId}-${st.client}-${purpose}`),
    sharedTopic: (purpose) => sanitize(`compat-${o.runId}-${purpose}`),
    harness: harnessFor(o.target.bootstrap),
    harnessFor,
    driverFor: (bs) => {
      let p = st.others.get(bs);
      if (!p) st.others.set(bs, (p = makeDriver(st.client, bs, o.runId)));
      return p;
    },
    exclusive,
    observed,
    shared,
  });

  await Promise.all(states.map(connect));

  // Phase 1: prepare (cross-client scenarios write first).
  await Promise.all(states.map(async (st) => {
    for (const s of scenarios) {
      if (!s.prepare || !st.driver || s.na?.(st.driver, ctxFor(st, {}))) continue;
      try {
        await deadline(s.prepare(ctxFor(st, {}), st.driver), s.timeoutMs ?? defaultTimeout, `${s.id} prepare`);
      } catch (e) {
        shared.set(`prepare-error-${s.id}-${st.client}`, (e as Error).message);
      }
    }
  }));

  // Phase 2: every scenario, clients in parallel.
  await Promise.all(states.map(async (st) => {
    for (const s of scenarios) {
      const t0 = Date.now();
      let out: Outcome;
      if (!st.driver) await connect(st);
      if (!st.driver) {
        out = { status: 'fail', reason: st.error };
      } else {
        const observed: Record<string, unknown> = {};
        const ctx = ctxFor(st, observed);
        const na = s.na?.(st.driver, ctx) ?? null;
        if (na) {
          out = { status: 'n/a', reason: na };
        } else {
          try {
            await deadline(s.run(ctx, st.driver), s.timeoutMs ?? defaultTimeout, s.id);
            out = { status: 'pass', observed };
          } catch (e) {
            const msg = e instanceof Fail ? e.message : `error: ${(e as Error)?.stack ?? String(e)}`;
            const prep = shared.get(`prepare-error-${s.id}-${st.client}`);
            out = { status: 'fail', reason: (prep ? `prepare: ${prep}; ` : '') + msg.slice(0, 2000), observed };
            await closeAll(st); // a fresh driver for the next scenario
          }
        }
      }
      out.ms = Date.now() - t0;
      result.results[s.id][st.client] = out;
      log(`${out.status.padEnd(4)} ${st.client.padEnd(12)} ${s.id} (${(out.ms / 1000).toFixed(1)}s)${out.status === 'fail' ? `: ${out.reason?.split('\n')[0]}` : ''}`);
    }
    await closeAll(st);
  }));

  await Promise.allSettled([...harnesses.values()].map((h) => deadline(h.close(), 10_000, 'harness close')));
  result.durationMs = Date.now() - started;
  return result;
}
