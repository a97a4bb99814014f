#!/usr/bin/env node
/**
 * Sarama's functional tests (github.com/IBM/sarama, build tag `functional`) against a five-broker
 * Samsa cluster behind Toxiproxy, the way Sarama's CI runs them against its docker compose file.
 *
 *   node tools/peers/sarama.mjs [--run REGEX] [--race] [--build] [--debug]
 *
 * - Sarama is pinned (SARAMA_VERSION): `go mod download`, copied to a temporary directory, its
 *   test binary built with `-tags functional` (`--race`: with -race, as Sarama's CI; slower).
 * - Toxiproxy (TOXIPROXY_VERSION, `go install` from the Go module proxy into the cache) on its API
 *   port 8474, with the proxies kafka1..kafka5 on 127.0.0.1:29091-29095 in front of the brokers.
 * - `docker` is tools/peers/sarama/docker first on the tests' PATH: their `docker compose up`
 *   starts Toxiproxy, etcd (/usr/bin/etcd on 19290/19291) and five brokers (`node dist/samsa.js
 *   start`, node.id 1-5, rack = node id), `down` stops everything and removes the data,
 *   `start/stop kafka-N` start and stop (SIGTERM, SIGKILL after 10 s) one broker, `logs` prints what
 *   the brokers logged, and `exec -T kafka-N ...` runs Kafka's tools (the jars tools/ensure-kafka.sh
 *   caches in ~/.cache/samsa) on this machine. Each broker has Sarama's two listeners: LOCAL on
 *   19201-19205, advertised at its proxy (localhost:2909N, what the tests connect to), and INTERNAL
 *   on 19211-19215 for replication and for the Kafka tools run "inside the container" (Sarama's
 *   kafka-N:9091), so the tests' toxics cut clients off and never the brokers from each other.
 *   The brokers get the settings Sarama's docker-compose.yml gives Kafka.
 * - Tests Samsa deliberately cannot pass are listed in tools/peers/sarama/expected-failures.json
 *   (name -> reason), left out with -test.skip and reported as skipped.
 *
 * Prints one line per test, then `P passed, F failed, S skipped (...)` with the wall time, and last
 * `P passed, F failed`; exits 1 when a test failed. Without Go it says so in one line and exits 0,
 * except under CI=true, where that is a failure. Everything it started is stopped on exit (also on
 * SIGINT/SIGTERM); the last run's logs (go-test.log, kafka-N.log, etcd.log, toxiproxy.log,
 * compose.log) stay in $TMPDIR/samsa-sarama/. A broker that exits other than through a compose
 * command (a crash, or a signal from elsewhere) is reported on the output; it is not restarted.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const OWN = path.join(HERE, 'sarama');

const SARAMA_MODULE = 'github.com/IBM/sarama';
const SARAMA_VERSION = 'v1.61.1';
// Sarama's compose file runs ghcr.io/shopify/toxiproxy:2.12.0; the Go module proxy serves v2.5.0 at
// most (the v2 module path), whose HTTP API is the same for what the tests use.
const TOXIPROXY_VERSION = 'v2.5.0';
// What the tests are told the brokers are (their compose file's default and Sarama's MaxVersion).
const KAFKA_VERSION = process.env.SARAMA_KAFKA_VERSION ?? '4.3.1';
const BROKERS = [1, 2, 3, 4, 5];
const LOCAL_PORT = (n) => 19200 + n; // 19201-19205
const INTERNAL_PORT = (n) => 19210 + n; // 19211-19215
const PROXY_PORT = (n) => 29090 + n; // 29091-29095 (Sarama's functional_test.go)
const TOXIPROXY_API_PORT = 8474;
const ETCD_CLIENT_PORT = 19290;
const ETCD_PEER_PORT = 19291;
const STOP_GRACE_MS = 10_000; // docker compose stop's default
const BROKER_START_TIMEOUT_MS = 60_000;
const GO_TEST_TIMEOUT = '15m'; // Sarama's Makefile (test_functional)

// Kafka's bin/*.sh scripts the tests run with `docker compose exec`, and the classes they start.
const KAFKA_TOOLS = {
  'kafka-console-producer.sh': 'org.apache.kafka.tools.ConsoleProducer',
  'kafka-console-consumer.sh': 'org.apache.kafka.tools.consumer.ConsoleConsumer',
  'kafka-verifiable-consumer.sh': 'org.apache.kafka.tools.VerifiableConsumer',
  'kafka-verifiable-producer.sh': 'org.apache.kafka.tools.VerifiableProducer',
  'kafka-topics.sh': 'org.apache.kafka.tools.TopicCommand',
  'kafka-consumer-groups.sh': 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  'kafka-configs.sh': 'org.apache.kafka.tools.ConfigCommand',
  'kafka-broker-api-versions.sh': 'org.apache.kafka.tools.BrokerApiVersionsCommand',
  'kafka-get-offsets.sh': 'org.apache.kafka.tools.GetOffsetShell',
};
// Tests that run Kafka's tools (left out, with a reason, when Java or the jars cannot be had).
const JAVA_TESTS = /^(TestJava|TestFuncJavaInterop)/;

const ci = process.env.CI === 'true';
const t0 = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;
const mins = (ms) => `${Math.floor(ms / 60000)}m${String(Math.round((ms % 60000) / 1000)).padStart(2, '0')}s`;
const say = (line) => console.log(line);
const note = (line) => console.log(`sarama: ${line}`);

function finish(passed, failed, code) {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code);
}

// ---- arguments --------------------------------------------------------------------------------
let runFilter = null;
let race = false;
let debug = false;
let build = false;
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--run') runFilter = new RegExp(argv[++i]);
    else if (a.startsWith('--run=')) runFilter = new RegExp(a.slice(6));
    else if (a === '--race') race = true;
    else if (a === '--debug') debug = true;
    else if (a === '--build') build = true;
    else {
      console.error(`usage: node tools/peers/sarama.mjs [--run REGEX] [--race] [--build] [--debug]${a === '--help' || a === '-h' ? '' : ` (unknown argument ${a})`}`);
      finish(0, 1, 1);
    }
  }
}

// ---- Go ---------------------------------------------------------------------------------------
{
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    if (ci) {
      note('no Go toolchain on PATH (needed to build Sarama\'s functional tests); under CI that is a failure');
      finish(0, 1, 1);
    }
    note('no Go toolchain on PATH: Sarama\'s functional tests not run');
    process.exit(0);
  }
}

// ---- run state, teardown ----------------------------------------------------------------------
const LOGS = path.join(os.tmpdir(), 'samsa-sarama');
rmSync(LOGS, { recursive: true, force: true });
mkdirSync(LOGS, { recursive: true });
const work = mkdtempSync(path.join(os.tmpdir(), 'samsa-sarama-run-'));
const cacheRoot = process.env.SAMSA_KAFKA_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'samsa');
const CACHE = path.join(cacheRoot, 'sarama');
mkdirSync(CACHE, { recursive: true });

let goTest = null; // the test process (its own process group: the JVMs the tests start are in it)
let control = null;
let tearingDown = null;
const cluster = makeCluster();

async function teardown() {
  if (tearingDown) return tearingDown;
  tearingDown = (async () => {
    if (goTest && goTest.exitCode === null && goTest.signalCode === null) {
      try {
        process.kill(-goTest.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await cluster.down().catch(() => {});
    control?.close();
    rmSync(work, { recursive: true, force: true });
  })();
  return tearingDown;
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => {
    note(`${sig}: stopping everything`);
    void teardown().then(() => finish(0, 1, 130));
  });
}
process.once('exit', () => {
  // last resort (an exception): no process of ours outlives the harness
  for (const p of cluster.processes()) p.kill('SIGKILL');
  if (goTest?.pid) try { process.kill(-goTest.pid, 'SIGKILL'); } catch { /* gone */ }
});

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error || r.status !== 0) {
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})${out ? `:\n${out}` : ''}`);
  }
  return r.stdout;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function waitFor(what, timeoutMs, check, failed = () => null) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const why = failed();
    if (why) throw new Error(`${what}: ${why}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

async function httpOk(url, init) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok;
}

/** A child process whose output lines are kept (with the time they came) and written to a log file. */
function launch(name, cmd, args, env = process.env, sink = null) {
  const file = path.join(LOGS, `${name}.log`);
  const proc = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const lines = [];
  const onLine = (s) => {
    const at = new Date();
    lines.push({ at, s });
    if (lines.length > 200_000) lines.splice(0, 100_000);
    sink?.({ at, s });
    appendFileSync(file, `${at.toISOString()} ${s}\n`);
  };
  createInterface({ input: proc.stdout }).on('line', onLine);
  createInterface({ input: proc.stderr }).on('line', onLine);
  const child = { name, proc, lines, exited: null, expected: false, running: () => proc.exitCode === null && proc.signalCode === null };
  child.exited = new Promise((resolve) => proc.once('exit', (code, sig) => {
    if (!child.expected && !tearingDown) {
      // not by a compose command: say so where the test output is (something else signalled it, or it crashed)
      const msg = `${name} exited by itself (${sig ?? `exit ${code}`}), not through docker compose`;
      onLine(`[harness] ${msg}`);
      appendFileSync(path.join(LOGS, 'compose.log'), `${new Date().toISOString()} ${msg}\n`);
      note(msg);
    }
    resolve(code ?? sig);
  }));
  proc.once('error', (e) => onLine(`[harness] ${name} could not start: ${e.message}`));
  appendFileSync(file, `${new Date().toISOString()} [harness] ${cmd} ${args.join(' ')}\n`);
  return child;
}

async function kill(child, graceMs) {
  if (!child?.running()) return;
  child.expected = true;
  child.proc.kill('SIGCONT');
  child.proc.kill(graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
  if (graceMs > 0) {
    const t = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
    await child.exited;
    clearTimeout(t);
  } else await child.exited;
}

// ---- the cluster: what `docker compose` does to Sarama's services -----------------------------
function makeCluster() {
  let toxiproxy = null;
  let etcd = null;
  const brokers = new Map(); // node id -> child
  const brokerLines = new Map(); // node id -> every line of every incarnation
  let data = null; // the volumes: etcd's and the brokers' data, removed by down
  let up = false;
  let toxiproxyBin = null;
  const toxi = `http://127.0.0.1:${TOXIPROXY_API_PORT}`;

  const brokerSettings = (n) => ({
    'node.id': n,
    listeners: `LOCAL://127.0.0.1:${LOCAL_PORT(n)},INTERNAL://127.0.0.1:${INTERNAL_PORT(n)}`,
    'advertised.listeners': `LOCAL://localhost:${PROXY_PORT(n)},INTERNAL://127.0.0.1:${INTERNAL_PORT(n)}`,
    'listener.security.protocol.map': 'LOCAL:PLAINTEXT,INTERNAL:PLAINTEXT',
    'inter.broker.listener.name': 'INTERNAL',
    'log.dirs': path.join(data, `kafka-${n}`),
    'samsa.etcd.endpoints': `http://127.0.0.1:${ETCD_CLIENT_PORT}`,
    'samsa.http.listeners': 'http://127.0.0.1:0',
    // Sarama's docker-compose.yml (x-kafka-base and each kafka-N) and Kafka's config/server.properties
    'broker.rack': n,
    'default.replication.factor': 2,
    'offsets.topic.replication.factor': 2,
    'transaction.state.log.replication.factor': 2,
    'transaction.state.log.min.isr': 1,
    // (replica.selector.class RackAwareReplicaSelector left out: Samsa has no follower fetching
    // (KIP-392), so consumers with a rack fetch from the leader, as Kafka without a selector)
    'delete.topic.enable': true,
    'auto.create.topics.enable': false,
    'group.initial.rebalance.delay.ms': 0,
    'num.partitions': 1,
    // Not in Sarama's compose file: TestFuncAdminListOffsets writes records stamped 2023-11-14,
    // older than the default 7-day retention.ms, so any retention check (every 5 minutes, Kafka's
    // default) between its produce and its ListOffsets deletes them and "earliest" reads 10, not 0
    // (Kafka deletes breached active segments too: the same race, at another phase, since Kafka's
    // first check comes 30 s after start). The suite runs ~5.5 minutes, so the check is moved out.
    'log.retention.check.interval.ms': 3_600_000,
  });

  async function startBroker(n) {
    const old = brokers.get(n);
    if (old?.running()) return;
    const argv = Object.entries(brokerSettings(n)).flatMap(([k, v]) => ['--override', `${k}=${v}`]);
    if (!brokerLines.has(n)) brokerLines.set(n, []);
    const all = brokerLines.get(n); // the service's log: every incarnation
    const child = launch(`kafka-${n}`, process.execPath, [path.join(ROOT, 'dist', 'samsa.js'), 'start', ...argv],
      { ...process.env, SAMSA_LOG_LEVEL: process.env.SAMSA_LOG_LEVEL ?? 'info' }, (l) => all.push(l));
    brokers.set(n, child);
    const seen = child.lines;
    await waitFor(`kafka-${n}`, BROKER_START_TIMEOUT_MS, async () => seen.some((l) => l.s.includes('Samsa started')),
      () => (child.running() ? null : `exited during start-up (${child.proc.exitCode ?? child.proc.signalCode}): ${seen.slice(-20).map((l) => l.s).join('\n')}`));
  }

  async function startToxiproxy() {
    if (toxiproxy?.running()) return;
    toxiproxy = launch('toxiproxy', toxiproxyBin, ['-host', '127.0.0.1', '-port', String(TOXIPROXY_API_PORT)], { ...process.env, LOG_LEVEL: 'info' });
    await waitFor('toxiproxy', 20_000, () => httpOk(`${toxi}/version`), () => (toxiproxy.running() ? null : 'exited'));
    for (const n of BROKERS) {
      const res = await fetch(`${toxi}/proxies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `kafka${n}`, listen: `127.0.0.1:${PROXY_PORT(n)}`, upstream: `127.0.0.1:${LOCAL_PORT(n)}`, enabled: true }),
      });
      if (!res.ok) throw new Error(`toxiproxy: creating proxy kafka${n}: ${res.status} ${await res.text()}`);
    }
  }

  async function startEtcd() {
    const client = `http://127.0.0.1:${ETCD_CLIENT_PORT}`;
    const peer = `http://127.0.0.1:${ETCD_PEER_PORT}`;
    etcd = launch('etcd', process.env.SAMSA_ETCD_BIN ?? '/usr/bin/etcd', [
      '--name', 'sarama', '--data-dir', path.join(data, 'etcd'),
      '--listen-client-urls', client, '--advertise-client-urls', client,
      '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `sarama=${peer}`, '--initial-cluster-state', 'new',
      '--heartbeat-interval', '100', '--election-timeout', '1000', '--log-level', 'warn',
    ]);
    await waitFor('etcd', 20_000, () => httpOk(`${client}/health`), () => (etcd.running() ? null : 'exited'));
  }

  async function doUp() {
    if (up) return;
    const busy = [];
    for (const p of [TOXIPROXY_API_PORT, ETCD_CLIENT_PORT, ETCD_PEER_PORT, ...BROKERS.flatMap((n) => [LOCAL_PORT(n), INTERNAL_PORT(n), PROXY_PORT(n)])]) {
      if (!(await portFree(p))) busy.push(p);
    }
    if (busy.length) throw new Error(`ports in use: ${busy.join(', ')} (another run, or something else, holds them)`);
    data = mkdtempSync(path.join(work, 'volumes-'));
    up = true;
    await startToxiproxy();
    await startEtcd();
    // one after another: the first becomes the controller, and start-up shares two cores
    for (const n of BROKERS) await startBroker(n);
  }

  async function doDown() {
    up = false;
    await Promise.all([...brokers.values()].map((b) => kill(b, 0)));
    await kill(etcd, 0);
    await kill(toxiproxy, 0);
    if (data) rmSync(data, { recursive: true, force: true });
    data = null;
  }

  function parseSince(s) {
    if (/^\d+$/.test(s)) return new Date(Number(s) * 1000);
    const rel = /^(\d+)(s|m|h)$/.exec(s);
    if (rel) return new Date(Date.now() - Number(rel[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[rel[2]]);
    const d = new Date(s);
    if (Number.isNaN(d.getTime())) throw new Error(`logs: cannot read --since ${s}`);
    return d;
  }

  function service(name) {
    const m = /^kafka-([1-5])$/.exec(name ?? '');
    if (!m) throw new Error(`no such service: ${name ?? '(none)'} (kafka-1 .. kafka-5)`);
    return Number(m[1]);
  }

  /** One `docker compose ...` (global options already removed by the shim): { code, stdout, stderr }. */
  async function compose(args) {
    const [sub, ...rest] = args;
    const flags = rest.filter((a) => a.startsWith('-'));
    const names = [];
    let stdout = '';
    switch (sub) {
      case 'up':
        // up -d --quiet-pull --timestamps --wait --wait-timeout 600: every service, running and answering
        await doUp();
        break;
      case 'down':
      case 'rm':
        await doDown();
        break;
      case 'start':
        for (const a of rest) if (!a.startsWith('-')) names.push(service(a));
        if (!up) throw new Error('start: the services do not exist (compose up first)');
        for (const n of names) await startBroker(n);
        break;
      case 'stop':
      case 'kill': {
        for (const a of rest) if (!a.startsWith('-')) names.push(service(a));
        await Promise.all(names.map((n) => kill(brokers.get(n), sub === 'stop' ? STOP_GRACE_MS : 0)));
        break;
      }
      case 'logs': {
        let since = null;
        let tail = Infinity;
        let timestamps = false;
        for (let i = 0; i < rest.length; i++) {
          const a = rest[i];
          if (a === '-t' || a === '--timestamps') timestamps = true;
          else if (a === '--since') since = parseSince(rest[++i]);
          else if (a.startsWith('--since=')) since = parseSince(a.slice(8));
          else if (a === '-n' || a === '--tail') tail = rest[++i] === 'all' ? Infinity : Number(rest[i]);
          else if (a === '--no-color' || a === '--no-log-prefix') continue;
          else if (a.startsWith('-')) throw new Error(`logs: option ${a} is not implemented`);
          else names.push(service(a));
        }
        for (const n of names.length ? names : BROKERS) {
          let lines = (brokerLines.get(n) ?? []).filter((l) => !since || l.at >= since);
          if (Number.isFinite(tail)) lines = lines.slice(-tail);
          for (const l of lines) stdout += `kafka-${n}  | ${timestamps ? `${l.at.toISOString()} ` : ''}${l.s}\n`;
        }
        break;
      }
      case 'ps':
        for (const n of BROKERS) stdout += `kafka-${n} ${brokers.get(n)?.running() ? 'running' : 'exited'}\n`;
        break;
      default:
        throw new Error(`docker compose ${sub}: not implemented by Samsa's stand-in (tools/peers/sarama.mjs)`);
    }
    void flags;
    return { code: 0, stdout, stderr: '' };
  }

  return {
    setToxiproxyBin: (p) => { toxiproxyBin = p; },
    compose,
    down: doDown,
    processes: () => [toxiproxy, etcd, ...brokers.values()].filter((c) => c?.running()).map((c) => c.proc),
  };
}

/** The control listener the docker shim's compose.mjs talks to; one command at a time, as compose. */
function startControl() {
  let queue = Promise.resolve();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (s) => { body += s; });
    req.on('end', () => {
      const reply = (o) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(o));
      };
      if (req.method !== 'POST' || req.url !== '/compose') {
        res.writeHead(404).end();
        return;
      }
      let args;
      try {
        args = JSON.parse(body).args;
      } catch {
        reply({ code: 1, stderr: 'bad request\n' });
        return;
      }
      const started = Date.now();
      queue = queue.then(async () => {
        try {
          const r = await cluster.compose(args);
          appendFileSync(path.join(LOGS, 'compose.log'), `${new Date().toISOString()} docker compose ${args.join(' ')}: ok (${secs(Date.now() - started)})\n`);
          reply(r);
        } catch (e) {
          const msg = e instanceof Error ? e.message : String(e);
          appendFileSync(path.join(LOGS, 'compose.log'), `${new Date().toISOString()} docker compose ${args.join(' ')}: ${msg}\n`);
          reply({ code: 1, stdout: '', stderr: `docker compose (Samsa's stand-in): ${msg}\n` });
        }
      });
    });
  });
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---- preparation ------------------------------------------------------------------------------
function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function walkChmod(dir) {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walkChmod(p);
    else chmodSync(p, 0o644);
  }
}

async function prepare() {
  // etcd and Kafka's jars (no-ops when present)
  run('bash', [path.join(ROOT, 'tools', 'ensure-etcd.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  let javaWhy = null;
  let kafka = null;
  try {
    run('bash', [path.join(ROOT, 'tools', 'ensure-kafka.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
    const js = "import('./tools/kafka/kafka.ts').then((m) => console.log(JSON.stringify({ java: m.javaBin(), opts: m.JVM_OPTS, classpath: m.kafkaJars().classpath })))";
    kafka = JSON.parse(run(process.execPath, ['--import', 'tsx', '-e', js], { cwd: ROOT }).trim().split('\n').pop());
  } catch (e) {
    javaWhy = `Kafka's tools cannot run here: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`;
  }

  // Samsa's bundle: built when missing or with --build (npm ci builds it; other work may be going
  // on in src/, so a newer src/ is only reported)
  const bundle = path.join(ROOT, 'dist', 'samsa.js');
  if (existsSync(bundle) && !build && statSync(bundle).mtimeMs < newestMtime(path.join(ROOT, 'src'))) {
    note('src/ is newer than dist/samsa.js, which is what runs (--build rebuilds it first)');
  }
  if (!existsSync(bundle) || build) {
    note('building Samsa (npm run build)');
    try {
      run('npm', ['run', 'build'], { cwd: ROOT });
    } catch (e) {
      if (!existsSync(bundle)) throw e;
      note(`npm run build failed; using the dist/samsa.js there is: ${(e instanceof Error ? e.message : String(e)).split('\n').slice(0, 3).join(' ')}`);
    }
  }

  // Sarama's source, writable, and its functional test binary
  const modDir = path.join(work, 'mod');
  mkdirSync(modDir);
  const dl = JSON.parse(run('go', ['mod', 'download', '-json', `${SARAMA_MODULE}@${SARAMA_VERSION}`], { cwd: modDir }));
  if (!dl.Dir) throw new Error(`go mod download ${SARAMA_MODULE}@${SARAMA_VERSION}: ${dl.Error ?? 'no Dir'}`);
  const src = path.join(work, 'sarama');
  cpSync(dl.Dir, src, { recursive: true });
  walkChmod(src);
  const binary = path.join(work, 'sarama.test');
  run('go', ['test', '-c', '-tags', 'functional', ...(race ? ['-race'] : []), '-o', binary, '.'], { cwd: src });

  // Toxiproxy's server
  const toxiproxyBin = path.join(CACHE, `toxiproxy-server-${TOXIPROXY_VERSION}`);
  if (!existsSync(toxiproxyBin)) {
    note(`installing Toxiproxy ${TOXIPROXY_VERSION} (go install github.com/Shopify/toxiproxy/v2/cmd/server)`);
    const gobin = mkdtempSync(path.join(work, 'gobin-'));
    run('go', ['install', `github.com/Shopify/toxiproxy/v2/cmd/server@${TOXIPROXY_VERSION}`], { cwd: modDir, env: { ...process.env, GOBIN: gobin } });
    renameSync(path.join(gobin, 'server'), toxiproxyBin);
  }
  cluster.setToxiproxyBin(toxiproxyBin);

  // the PATH the tests run with: docker (the shim), and Kafka's bin/*.sh as wrappers
  const bin = path.join(work, 'bin');
  const kbin = path.join(work, 'kafka-bin');
  mkdirSync(bin);
  mkdirSync(kbin);
  symlinkSync(path.join(OWN, 'docker'), path.join(bin, 'docker'));
  const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
  for (const [script, cls] of Object.entries(KAFKA_TOOLS)) {
    const body = kafka
      ? `exec ${q(kafka.java)} ${kafka.opts.map(q).join(' ')} -cp ${q(kafka.classpath)} ${cls} "$@"`
      : `echo ${q(`${script}: ${javaWhy}`)} >&2; exit 127`;
    writeFileSync(path.join(kbin, script), `#!/bin/sh\n# ${script} of Kafka, as in /opt/kafka-${KAFKA_VERSION}/bin (tools/peers/sarama.mjs)\n${body}\n`, { mode: 0o755 });
  }

  // the functional tests, and what is left out
  const tests = [];
  for (const f of readdirSync(src).filter((f) => /^functional_.*_test\.go$/.test(f)).sort()) {
    for (const m of readFileSync(path.join(src, f), 'utf8').matchAll(/^func (Test\w+)\(t \*testing\.T\)/gm)) tests.push(m[1]);
  }
  const expected = JSON.parse(readFileSync(path.join(OWN, 'expected-failures.json'), 'utf8'));
  const excluded = new Map();
  for (const [name, reason] of Object.entries(expected)) {
    if (name.startsWith('$')) continue;
    if (!tests.includes(name)) note(`expected-failures.json names ${name}, which Sarama ${SARAMA_VERSION} does not have`);
    else excluded.set(name, reason);
  }
  if (javaWhy) for (const name of tests) if (JAVA_TESTS.test(name) && !excluded.has(name)) excluded.set(name, javaWhy);
  const selected = tests.filter((t) => !runFilter || runFilter.test(t));
  return { src, binary, bin, kbin, selected, excluded, javaWhy };
}

// ---- the run ----------------------------------------------------------------------------------
async function main() {
  const prep = await prepare();
  const toRun = prep.selected.filter((t) => !prep.excluded.has(t));
  const left = prep.selected.filter((t) => prep.excluded.has(t));
  note(`Sarama ${SARAMA_VERSION} functional tests${race ? ' (-race)' : ''}: ${toRun.length} to run, ${left.length} left out; prepared in ${secs(Date.now() - t0)}; logs in ${LOGS}`);
  if (toRun.length === 0) {
    for (const t of left) say(`SKIP  ${t}: ${prep.excluded.get(t)}`);
    note(`0 passed, 0 failed, ${left.length} skipped`);
    finish(0, prep.selected.length === 0 ? 1 : 0, prep.selected.length === 0 ? 1 : 0);
  }

  control = await startControl();
  const env = { ...process.env };
  delete env.TOXIPROXY_ADDR; // Sarama's "existing environment" mode skips the tests that need compose
  Object.assign(env, {
    PATH: `${prep.bin}:${process.env.PATH}`,
    KAFKA_VERSION,
    SARAMA_COMPOSE_CONTROL: `http://127.0.0.1:${control.address().port}`,
    SARAMA_KAFKA_BIN: prep.kbin,
    SARAMA_INTERNAL_PORTS: BROKERS.map(INTERNAL_PORT).join(' '),
  });
  if (debug) env.DEBUG = 'true';

  const runArgs = ['-test.v=test2json', '-test.run', `^(${toRun.join('|')})$`, '-test.timeout', GO_TEST_TIMEOUT, '-test.count', '1'];
  const started = Date.now();
  goTest = spawn('go', ['tool', 'test2json', '-t', '-p', SARAMA_MODULE, prep.binary, ...runArgs], { cwd: prep.src, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const goLog = path.join(LOGS, 'go-test.log');
  const results = new Map(); // top-level test -> { action, elapsed }
  const output = new Map(); // top-level test -> lines
  const pkgOutput = [];
  let pkgAction = null;
  const onEvent = (line) => {
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      appendFileSync(goLog, `${line}\n`);
      pkgOutput.push(line);
      return;
    }
    if (ev.Output !== undefined) appendFileSync(goLog, ev.Output);
    const top = ev.Test?.split('/')[0];
    if (!top) {
      if (ev.Output !== undefined) pkgOutput.push(ev.Output);
      if (['pass', 'fail'].includes(ev.Action)) pkgAction = ev.Action;
      return;
    }
    if (ev.Output !== undefined) {
      if (!output.has(top)) output.set(top, []);
      output.get(top).push(ev.Output);
    }
    if (ev.Test === top && ['pass', 'fail', 'skip'].includes(ev.Action)) {
      results.set(top, { action: ev.Action, elapsed: ev.Elapsed ?? 0 });
      const tag = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' }[ev.Action];
      const why = ev.Action === 'skip' ? `: ${(output.get(top) ?? []).filter((l) => /^\s+\S+\.go:\d+:/.test(l)).map((l) => l.trim()).pop() ?? 'skipped by the test'}` : '';
      say(`${tag}  ${top} (${secs((ev.Elapsed ?? 0) * 1000)})${why}`);
      if (ev.Action === 'fail') {
        const lines = (output.get(top) ?? []).join('').split('\n');
        say(lines.slice(-80).map((l) => `      ${l}`).join('\n'));
      }
    } else if (ev.Test === top && ev.Action === 'run') {
      appendFileSync(path.join(LOGS, 'compose.log'), `${new Date().toISOString()} --- ${top}\n`);
    }
  };
  createInterface({ input: goTest.stdout }).on('line', onEvent);
  createInterface({ input: goTest.stderr }).on('line', (l) => {
    appendFileSync(goLog, `${l}\n`);
    pkgOutput.push(`${l}\n`);
  });
  const code = await new Promise((resolve) => goTest.once('close', (c, s) => resolve(c ?? s)));
  const took = Date.now() - started;

  let passed = 0;
  let failed = 0;
  let skippedByTests = 0;
  const unfinished = [];
  for (const t of toRun) {
    const r = results.get(t);
    if (!r) {
      if (output.has(t)) unfinished.push(t);
      continue;
    }
    if (r.action === 'pass') passed++;
    else if (r.action === 'fail') failed++;
    else skippedByTests++;
  }
  for (const t of unfinished) say(`FAIL  ${t}: did not finish (the test binary ended: ${code})`);
  failed += unfinished.length;
  const notRun = code !== 0 ? toRun.filter((t) => !results.has(t) && !output.has(t)) : [];
  if ((code !== 0 || pkgAction === 'fail') && failed === 0) {
    // TestMain failed (the cluster did not come up, a panic), or the timeout
    say(`FAIL  the test binary (exit ${code}); its last lines:`);
    say(pkgOutput.join('').split('\n').slice(-60).map((l) => `      ${l}`).join('\n'));
    if (notRun.length === 0) failed++;
  }
  if (notRun.length) {
    say(`FAIL  not run (the test binary ended): ${notRun.join(' ')}`);
    failed += notRun.length;
  }
  for (const t of left) say(`SKIP  ${t}: ${prep.excluded.get(t)}`);
  const skipped = skippedByTests + left.length;
  note(`${passed} passed, ${failed} failed, ${skipped} skipped (${left.length} left out, ${skippedByTests} skipped by the tests); tests ${mins(took)}, all ${mins(Date.now() - t0)}`);
  goTest = null;
  await teardown();
  if (ci && prep.javaWhy) {
    note(`under CI Kafka's tools must run: ${prep.javaWhy}`);
    failed++;
  }
  finish(passed, failed, failed > 0 ? 1 : 0);
}

main().catch(async (e) => {
  note(`error: ${e instanceof Error ? e.message : String(e)}`);
  await teardown();
  finish(0, 1, 1);
});
