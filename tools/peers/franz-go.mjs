#!/usr/bin/env node
/**
 * franz-go's own integration tests (`pkg/kgo`) against Samsa, run the way franz-go's CI runs them
 * against Apache Kafka (its .github/workflows/lint-and-test.yml, job integration-test-kafka):
 * KGO_SEEDS, KGO_TEST_RF, KGO_TEST_STABLE_FETCH, a SASL_PLAINTEXT listener with SCRAM-SHA-256 and
 * OAUTHBEARER (unsecured JWS) for KGO_TEST_SCRAM_SEEDS / KGO_TEST_OAUTH_SEEDS, a SCRAM user
 * testuser:testpass, group.share.delivery.count.limit 10 and 5 share-state partitions. The ETL
 * tests run 100,000 records (KGO_TEST_RECORDS; franz-go's default, which its CI keeps, is 500,000):
 * those tests have deadlines of their own (4 minutes for TestShareGroupETL), which 500,000 records
 * met on one broker of a quiet 2-core machine (2 minutes for the package) but missed on three
 * brokers (RF 3: every record written three times, over 8 minutes) and on one broker of a machine
 * busy with other work. KGO_TEST_RECORDS in the environment overrides it (500000: franz-go's CI).
 *
 *   npm run test:peers                       # both layouts
 *   node tools/peers/franz-go.mjs [--layout one|three|both] [--run REGEX] [--no-build] [--keep DIR]
 *
 * Layouts: `one` is a single broker without etcd (KGO_TEST_RF=1); `three` is etcd and brokers 1-3
 * (KGO_TEST_RF=3), each with a PLAINTEXT and a SASL_PLAINTEXT listener. Ports 19100-19199 (brokers
 * from 19100, etcd on 19190/19191); SAMSA_PEERS_PORT_BASE moves them.
 *
 * franz-go is pinned by tools/peers/franz-go/go.mod (v1.22.3): the module is fetched into the Go
 * module cache with `go mod download` and its tests run from a writable copy in a temporary
 * directory, with the module's own go.mod and go.sum. Tests Samsa cannot pass by design are listed
 * with their reasons in tools/peers/expected-failures.json; they are skipped (`go test -skip`) and
 * counted as skipped. The run prints, per layout, the passed / failed / skipped top-level tests
 * and its time, and ends with `N passed, N failed` (both layouts); exit status 1 on any failure.
 * Brokers, etcd and temporary directories are removed on exit, also after a failure or a signal
 * (`--keep DIR` copies the broker logs and the `go test -json` output there first).
 *
 * Without Go it says so in one line and ends `0 passed, 0 failed` (exit 0), or fails under CI=true.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, chmodSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const MODULE_DIR = path.join(HERE, 'franz-go');
const FRANZ = 'github.com/twmb/franz-go';
const FRANZ_VERSION = /github\.com\/twmb\/franz-go v(\S+)/.exec(readFileSync(path.join(MODULE_DIR, 'go.mod'), 'utf8'))[1];
const PKG = './pkg/kgo/';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const ETCD_BIN = process.env.SAMSA_ETCD_BIN ?? '/usr/bin/etcd';
const PORT_BASE = Number(process.env.SAMSA_PEERS_PORT_BASE ?? 19100);
const SCRAM_USER = 'testuser';
const SCRAM_PASS = 'testpass';
// go test's deadline per layout (franz-go's CI: 5m against one Kafka broker).
const GO_TIMEOUT = process.env.SAMSA_PEERS_GO_TIMEOUT ?? '8m';
// KGO_TEST_RECORDS of both layouts, unless set in the environment (see above).
const RECORDS = process.env.KGO_TEST_RECORDS ?? '100000';

// ---- arguments ----------------------------------------------------------------------------------
let layouts = ['one', 'three'];
let runFilter = null;
let build = true;
let keepDir = null;
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--layout') {
      const v = argv[++i];
      layouts = v === 'both' ? ['one', 'three'] : [v];
      if (!layouts.every((l) => l === 'one' || l === 'three')) usage(`unknown layout ${v}`);
    } else if (a === '--run') runFilter = argv[++i];
    else if (a === '--no-build') build = false;
    else if (a === '--keep') keepDir = path.resolve(argv[++i]);
    else usage(a === '--help' || a === '-h' ? null : `unknown argument ${a}`);
  }
}

function usage(msg) {
  if (msg) console.error(msg);
  console.error('usage: node tools/peers/franz-go.mjs [--layout one|three|both] [--run REGEX] [--no-build] [--keep DIR]');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// ---- clean-up -----------------------------------------------------------------------------------
const children = new Set(); // process-group leaders we started
const tempDirs = new Set();

function killGroup(child, signal = 'SIGKILL') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* gone */
    }
  }
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function cleanupSync() {
  for (const c of children) killGroup(c);
  children.clear();
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
  tempDirs.clear();
}
process.on('exit', cleanupSync);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.log(`\n${sig}: stopping`);
    cleanupSync();
    console.log('0 passed, 1 failed');
    process.exit(130);
  });
}

function tempDir(label) {
  const d = mkdtempSync(path.join(os.tmpdir(), `samsa-peers-${label}-`));
  tempDirs.add(d);
  return d;
}

/** Starts a child in its own process group, output to `logFile` (or inherited). */
function start(cmd, args, { cwd = ROOT, env = process.env, logFile = null } = {}) {
  const out = logFile ? createWriteStream(logFile) : null;
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', out ? 'pipe' : 'inherit', out ? 'pipe' : 'inherit'] });
  if (out) {
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
  }
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs a command to completion; resolves with its status, stdout and stderr. */
function run(cmd, args, { cwd = ROOT, env = process.env, echo = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s) => {
      stdout += s;
      if (echo) process.stdout.write(s);
    });
    child.stderr.setEncoding('utf8').on('data', (s) => {
      stderr += s;
      if (echo) process.stderr.write(s);
    });
    child.on('error', (e) => {
      stderr += String(e);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ status: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secs = (ms) => `${(ms / 1000).toFixed(0)} s`;

function finish(passed, failed) {
  cleanupSync();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

// ---- Go -----------------------------------------------------------------------------------------
function findGo() {
  for (const c of ['go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go']) {
    const r = spawnSync(c, ['version'], { encoding: 'utf8' });
    if (r.status === 0) return { bin: c, version: r.stdout.trim() };
  }
  return null;
}

const t0 = Date.now();
const go = findGo();
if (!go) {
  console.log(`franz-go peers: no Go toolchain found (go on PATH or /usr/local/go/bin/go); ${IN_CI ? 'a failure under CI' : 'skipped'}`);
  finish(0, IN_CI ? 1 : 0);
}
// Go's own settings stay (GOFLAGS, GOPROXY, caches); the module copy is used as it is.
const goEnv = { ...process.env, GOFLAGS: [process.env.GOFLAGS, '-mod=mod'].filter(Boolean).join(' ') };

const expected = JSON.parse(readFileSync(path.join(HERE, 'expected-failures.json'), 'utf8'))['franz-go'] ?? [];
const expectedFor = (layout) => expected.filter((e) => !e.layouts || e.layouts.includes(layout));

async function prepare() {
  console.log(`== franz-go ${FRANZ_VERSION} pkg/kgo against Samsa (${go.version})`);
  if (layouts.includes('three')) {
    try {
      accessSync(ETCD_BIN, constants.X_OK);
    } catch {
      const r = await run('bash', [path.join(ROOT, 'tools', 'ensure-etcd.sh')], { echo: true });
      if (r.status !== 0) {
        console.log(`franz-go peers: ${ETCD_BIN} is missing and could not be installed; the three-broker layout cannot run`);
        finish(0, 1);
      }
    }
  }
  if (build) {
    const t = Date.now();
    const r = await run('npm', ['run', 'build', '--silent']);
    if (r.status !== 0) {
      console.log(r.stdout + r.stderr);
      console.log('franz-go peers: npm run build failed');
      finish(0, 1);
    }
    console.log(`   npm run build: ${secs(Date.now() - t)}`);
  } else if (!existsSync(path.join(ROOT, 'dist', 'samsa.js'))) {
    console.log('franz-go peers: dist/samsa.js is missing (run npm run build, or drop --no-build)');
    finish(0, 1);
  }

  const t = Date.now();
  const dl = await run(go.bin, ['mod', 'download', '-json', `${FRANZ}@v${FRANZ_VERSION}`], { cwd: MODULE_DIR, env: goEnv });
  let modDir = null;
  try {
    modDir = JSON.parse(dl.stdout).Dir;
  } catch {
    /* below */
  }
  if (dl.status !== 0 || !modDir || !existsSync(modDir)) {
    console.log(dl.stdout + dl.stderr);
    console.log(`franz-go peers: go mod download ${FRANZ}@v${FRANZ_VERSION} failed`);
    finish(0, 1);
  }
  const work = tempDir('work');
  const src = path.join(work, 'franz-go');
  cpSync(modDir, src, { recursive: true });
  makeWritable(src);
  const helper = path.join(work, 'peers-setup');
  const hb = await run(go.bin, ['build', '-o', helper, '.'], { cwd: MODULE_DIR, env: goEnv });
  if (hb.status !== 0) {
    console.log(hb.stdout + hb.stderr);
    console.log('franz-go peers: building tools/peers/franz-go (peers-setup) failed');
    finish(0, 1);
  }
  // Compile the tests before any broker runs (the build cache makes the runs below link only).
  const tb = await run(go.bin, ['test', '-count=1', '-run', '^$', PKG], { cwd: src, env: goEnv });
  if (tb.status !== 0) {
    console.log(tb.stdout + tb.stderr);
    console.log(`franz-go peers: compiling ${FRANZ}/pkg/kgo's tests failed`);
    finish(0, 1);
  }
  console.log(`   module ${modDir} copied to ${src}, tests compiled: ${secs(Date.now() - t)}`);
  return { work, src, helper };
}

function makeWritable(dir) {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) makeWritable(p);
    else chmodSync(p, statSync(p).mode | 0o200);
  }
}

// ---- brokers ------------------------------------------------------------------------------------
async function startEtcd(dir) {
  const client = `http://127.0.0.1:${PORT_BASE + 90}`;
  const peer = `http://127.0.0.1:${PORT_BASE + 91}`;
  const child = start(ETCD_BIN, [
    '--name', 'samsa-peers', '--data-dir', path.join(dir, 'etcd'),
    '--listen-client-urls', client, '--advertise-client-urls', client,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `samsa-peers=${peer}`, '--initial-cluster-state', 'new',
    '--heartbeat-interval', '50', '--election-timeout', '300', '--logger', 'zap', '--log-level', 'warn',
  ], { logFile: path.join(dir, 'etcd.log') });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`etcd exited (${child.exitCode}): ${tail(path.join(dir, 'etcd.log'), 10)}`);
    try {
      const res = await fetch(`${client}/health`, { signal: AbortSignal.timeout(1000) });
      if ((await res.json()).health === 'true') return { child, url: client };
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`etcd at ${client} not healthy after 30 s`);
    await sleep(100);
  }
}

function tail(file, n) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-n - 1).join('\n');
  } catch {
    return '';
  }
}

async function startBroker(dir, nodeId, plainPort, saslPort, extra) {
  const logDir = path.join(dir, `broker-${nodeId}`);
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(dir, `broker-${nodeId}.log`);
  const settings = {
    'node.id': String(nodeId),
    listeners: `PLAINTEXT://127.0.0.1:${plainPort},SASL_PLAINTEXT://127.0.0.1:${saslPort}`,
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': logDir,
    'samsa.http.listeners': 'http://127.0.0.1:0',
    'sasl.enabled.mechanisms': 'SCRAM-SHA-256,OAUTHBEARER',
    'listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config':
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";',
    // As franz-go's CI configures Kafka: the share ETL test releases, bails and kills enough that a
    // record can reach the default limit of 5 deliveries.
    'group.share.delivery.count.limit': '10',
    'share.coordinator.state.topic.num.partitions': '5',
    ...extra,
  };
  const argv = ['dist/samsa.js', 'start', ...Object.entries(settings).flatMap(([k, v]) => ['--override', `${k}=${v}`])];
  const child = start(process.execPath, argv, { logFile, env: { ...process.env, SAMSA_LOG_LEVEL: process.env.SAMSA_LOG_LEVEL ?? 'info' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`broker ${nodeId} exited during start-up:\n${tail(logFile, 20)}`);
    if (existsSync(logFile) && readFileSync(logFile, 'utf8').includes('Samsa started')) return { child, nodeId, logFile };
    if (Date.now() > deadline) throw new Error(`broker ${nodeId} did not start within 60 s:\n${tail(logFile, 20)}`);
    await sleep(100);
  }
}

async function startLayout(layout, dir) {
  const n = layout === 'one' ? 1 : 3;
  const procs = [];
  const plain = [];
  const sasl = [];
  let extra = {};
  if (layout === 'three') {
    const etcd = await startEtcd(dir);
    procs.push(etcd);
    extra = { 'samsa.etcd.endpoints': etcd.url, 'samsa.etcd.key.prefix': `/samsa-peers-${process.pid}/` };
  }
  for (let i = 0; i < n; i++) {
    const p = PORT_BASE + 10 * (layout === 'one' ? 0 : 1) + 2 * i;
    plain.push(`127.0.0.1:${p}`);
    sasl.push(`127.0.0.1:${p + 1}`);
    procs.push(await startBroker(dir, i + 1, p, p + 1, extra));
  }
  return { procs, plain, sasl, n };
}

async function stopLayout(env) {
  for (const p of env.procs.slice().reverse()) {
    killGroup(p.child);
    await exited(p.child);
  }
}

// ---- go test -json ------------------------------------------------------------------------------
/** Runs the tests against one layout; resolves with the counts of top-level tests. */
async function runTests(layout, { src, helper }, dir) {
  const t = Date.now();
  const rf = layout === 'one' ? 1 : 3;
  const label = layout === 'one' ? 'one broker, KGO_TEST_RF=1' : 'three brokers and etcd, KGO_TEST_RF=3';
  console.log(`\n== ${label}, KGO_TEST_RECORDS=${RECORDS}`);
  const cluster = await startLayout(layout, dir);
  const setup = await run(helper, ['-bootstrap', cluster.plain.join(','), '-brokers', String(cluster.n), '-scram-seeds', cluster.sasl.join(','), '-user', SCRAM_USER, '-password', SCRAM_PASS]);
  if (setup.status !== 0) throw new Error(`peers-setup failed: ${setup.stdout}${setup.stderr}`);
  console.log(`   ${setup.stdout.trim()} (${secs(Date.now() - t)})`);

  const skipped = expectedFor(layout).filter((e) => !runFilter || new RegExp(runFilter).test(e.test));
  const args = ['test', '-json', '-count=1', `-timeout=${GO_TIMEOUT}`, PKG];
  if (runFilter) args.push('-run', runFilter);
  if (skipped.length > 0) args.push('-skip', `^(${skipped.map((e) => e.test).join('|')})$`);
  const env = {
    ...goEnv,
    KGO_SEEDS: cluster.plain.join(','),
    KGO_TEST_RF: String(rf),
    KGO_TEST_STABLE_FETCH: 'true',
    KGO_TEST_SCRAM_SEEDS: cluster.sasl.join(','),
    KGO_TEST_SCRAM: `${SCRAM_USER}:${SCRAM_PASS}`,
    KGO_TEST_OAUTH_SEEDS: cluster.sasl.join(','),
  };
  env.KGO_TEST_RECORDS = RECORDS;
  const jsonFile = path.join(dir, 'go-test.jsonl');
  const jsonOut = createWriteStream(jsonFile);
  const result = new Map(); // top-level test -> { action, elapsed }
  const started = new Set();
  const output = new Map(); // test (top-level) -> output lines
  let pkgAction = null;
  const nonJson = [];
  const tr = Date.now();
  const child = spawn(go.bin, args, { cwd: src, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let partial = '';
  const onLine = (line) => {
    jsonOut.write(line + '\n');
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      nonJson.push(line);
      return;
    }
    if (!ev.Test) {
      if (ev.Action === 'pass' || ev.Action === 'fail') pkgAction = ev.Action;
      if (ev.Action === 'output') (output.get('') ?? output.set('', []).get('')).push(ev.Output);
      return;
    }
    const top = ev.Test.split('/')[0];
    if (ev.Action === 'output') {
      const lines = output.get(top) ?? output.set(top, []).get(top);
      lines.push(ev.Output);
      if (lines.length > 4000) lines.splice(0, lines.length - 3000);
      return;
    }
    if (ev.Test !== top) return;
    if (ev.Action === 'run') started.add(top);
    if (ev.Action === 'pass' || ev.Action === 'fail' || ev.Action === 'skip') {
      result.set(top, { action: ev.Action, elapsed: ev.Elapsed ?? 0 });
      if (ev.Action === 'fail') console.log(`   FAIL ${top} (${(ev.Elapsed ?? 0).toFixed(1)} s)`);
    }
  };
  child.stdout.setEncoding('utf8').on('data', (s) => {
    partial += s;
    const lines = partial.split('\n');
    partial = lines.pop();
    for (const l of lines) if (l) onLine(l);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s) => {
    stderr += s;
  });
  await new Promise((resolve) => child.on('close', resolve));
  children.delete(child);
  if (partial) onLine(partial);
  await new Promise((r) => jsonOut.end(r));
  const runMs = Date.now() - tr;

  let passed = 0;
  let failed = 0;
  let skippedN = 0;
  const failures = [];
  for (const [name, r] of result) {
    if (r.action === 'pass') passed++;
    else if (r.action === 'skip') skippedN++;
    else {
      failed++;
      failures.push(name);
    }
  }
  for (const name of started) {
    if (!result.has(name)) {
      failed++;
      failures.push(name);
      console.log(`   FAIL ${name} (did not finish: timeout or panic)`);
    }
  }
  if (failed === 0 && (pkgAction !== 'pass' || child.exitCode !== 0)) {
    failed++;
    failures.push('');
    console.log(`   FAIL the package run (go test exited ${child.exitCode}, package ${pkgAction ?? 'no result'})`);
  }
  for (const name of failures) {
    // The clients' own log lines (franz-go's BasicLogger on stderr, "[15:04:05.999 N][INFO] ...")
    // are interleaved with every test's output: the test's own lines are what tells why it failed.
    const lines = (output.get(name) ?? []).join('').split('\n').filter((l) => l && !/^\[?\d\d:\d\d:\d\d/.test(l));
    console.log(`\n--- output of ${name || 'the package'} (its last 60 lines, client logs left out; all of it: --keep DIR):`);
    console.log(lines.slice(-60).map((l) => (l.length > 400 ? `${l.slice(0, 400)}...` : l)).join('\n'));
  }
  if (failures.length > 0) {
    if (stderr.trim()) console.log(`--- go test stderr:\n${stderr.trim().split('\n').slice(-20).join('\n')}`);
    if (nonJson.length) console.log(`--- go test non-JSON output:\n${nonJson.slice(-20).join('\n')}`);
    for (const p of cluster.procs) if (p.logFile) console.log(`--- ${path.basename(p.logFile)} (last 30 lines):\n${tail(p.logFile, 30)}`);
  }
  await stopLayout(cluster);

  const slow = [...result].sort((a, b) => b[1].elapsed - a[1].elapsed).slice(0, 5);
  console.log(`   slowest: ${slow.map(([n, r]) => `${n} ${r.elapsed.toFixed(0)} s`).join(', ')}`);
  for (const e of skipped) console.log(`   skipped (expected failure): ${e.test}: ${e.reason}`);
  skippedN += skipped.length;
  console.log(`franz-go ${FRANZ_VERSION} pkg/kgo, ${label}: ${passed} passed, ${failed} failed, ${skippedN} skipped; go test ${secs(runMs)}, layout ${secs(Date.now() - t)}`);
  return { passed, failed, skipped: skippedN };
}

// ---- main ---------------------------------------------------------------------------------------
const prep = await prepare();
let passed = 0;
let failed = 0;
for (const layout of layouts) {
  const dir = tempDir(layout);
  try {
    const r = await runTests(layout, prep, dir);
    passed += r.passed;
    failed += r.failed;
  } catch (e) {
    console.log(`franz-go peers, layout ${layout}: ${e.message}`);
    failed++;
  } finally {
    for (const c of [...children]) {
      killGroup(c);
      await exited(c);
    }
    if (keepDir) {
      mkdirSync(keepDir, { recursive: true });
      for (const f of readdirSync(dir)) if (f.endsWith('.log') || f.endsWith('.jsonl')) cpSync(path.join(dir, f), path.join(keepDir, `${layout}-${f}`));
    }
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  }
}
console.log(`\nfranz-go peers: ${secs(Date.now() - t0)} in all`);
finish(passed, failed);
