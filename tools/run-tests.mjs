#!/usr/bin/env node
/**
 * Samsa's test runner.
 *
 *   node tools/run-tests.mjs [--jobs N] [--timeout SECONDS] [PATH_OR_SUBSTRING ...]
 *
 * Finds test/**\/*.test.ts and compat-tests/**\/*.test.ts, runs each file in its own
 * `node --import ./tools/ts-loader/register.mjs FILE` child process (the project's TypeScript loader) (in its own process group), `--jobs` at a time (default 3,
 * or SAMSA_TEST_JOBS), each with a deadline (default 180 s, or SAMSA_TEST_TIMEOUT_S) after which the
 * whole process group is killed and the file counts as failed. A file whose first 2 KiB contain the
 * marker `@samsa-serial` runs alone, after the parallel ones (for tests that hold fixed resources);
 * `@samsa-early` starts a (long) file before the others, so the rest of the run overlaps it (the
 * files under compat-tests/, which start real Kafka brokers, never run beside it: they start as
 * soon as it has ended); `@samsa-long` starts a file first among its
 * peers (test/ or compat-tests/), so that the run does not end waiting on it alone;
 * `@samsa-timeout SECONDS` there gives a file a longer deadline.
 *
 * Per file it parses uvu's summary (`Total:`, `Passed:`, `Skipped:`; summed when a file prints more
 * than one) and the exit status: failed = Total - Passed; a file that exits non-zero, crashes,
 * times out or prints no summary counts at least 1 failed. The output of every failing file is
 * printed. Where GNU time is installed (/usr/bin/time) each file's line also gives its CPU seconds, and
 * the run ends with its wall time and the CPU-minutes of all files. The last line is always
 * `N passed, N failed` (tests summed over files); exit status 1 if
 * anything failed or nothing matched a filter.
 *
 * Before the first file it bundles the broker and the CLI once (src/main.ts, src/cli/samsa.ts and
 * the cleaner's worker, with esbuild, as `npm run build` bundles dist/samsa.js) into a temporary
 * directory under node_modules/.cache named by SAMSA_TEST_BUNDLE, from which the tests' broker and CLI child processes start
 * (test/support/node-ts.ts); SAMSA_TEST_FROM_SOURCE=1 runs them from source instead.
 *
 * Filters: an argument naming an existing directory selects the *.test.ts files under it, one
 * naming a *.test.ts file selects that file (wherever they are); any other argument selects the
 * discovered test files whose path relative to the repository contains it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST_ROOTS = ['test', 'compat-tests'];
// uvu drops errors thrown by before/after hooks: this preload prints them (test/support/uvu-hook-errors.mjs).
const HOOK_ERRORS = pathToFileURL(path.join(ROOT, 'test', 'support', 'uvu-hook-errors.mjs')).href;
const TS_LOADER = pathToFileURL(path.join(ROOT, 'tools', 'ts-loader', 'register.mjs')).href;
const SERIAL_MARKER = '@samsa-serial';
const EARLY_MARKER = '@samsa-early';
const LONG_MARKER = '@samsa-long';
const TIMEOUT_MARKER = /@samsa-timeout (\d+)/;
const MAX_CAPTURE = 4 * 1024 * 1024; // keep at most this much of one file's output (head + tail)
const KILL_GRACE_MS = 3000;
// GNU time (Debian's `time` package), where present, reports each file's CPU seconds: the file's
// process and every process it waited for (brokers, JVMs, client scripts it reaped).
const GNU_TIME = '/usr/bin/time';
const cpuDir = existsSync(GNU_TIME) ? mkdtempSync(path.join(os.tmpdir(), 'samsa-run-tests-')) : null;
let cpuFiles = 0;

function usage(msg) {
  if (msg) console.error(msg);
  console.error('usage: node tools/run-tests.mjs [--jobs N] [--timeout SECONDS] [PATH_OR_SUBSTRING ...]');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// ---- arguments -------------------------------------------------------------------------------
let jobs = Number(process.env.SAMSA_TEST_JOBS ?? 3);
let timeoutS = Number(process.env.SAMSA_TEST_TIMEOUT_S ?? 180);
const filters = [];
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
    if (flag === '--jobs' || flag === '-j') jobs = Number(inline ?? argv[++i]);
    else if (flag === '--timeout') timeoutS = Number(inline ?? argv[++i]);
    else if (flag === '--help' || flag === '-h') usage();
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else filters.push(a);
  }
  if (!Number.isInteger(jobs) || jobs < 1) usage('--jobs must be a positive integer');
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) usage('--timeout must be a positive number of seconds');
}

// ---- the run's bundle of the broker and the CLI (see the header) -------------------------------
async function makeBundle() {
  if (process.env.SAMSA_TEST_FROM_SOURCE === '1') return null;
  // Inside node_modules/.cache, so that the bundle's external packages resolve from node_modules.
  const cache = path.join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'samsa-test-bundle-'));
  const started = Date.now();
  const { bundle } = await import('./bundle.mjs');
  await bundle(dir, { main: 'src/main.ts', samsa: 'src/cli/samsa.ts', 'src/storage/cleaner-worker': 'src/storage/cleaner-worker.ts' });
  console.log(`run-tests: bundled the broker and the CLI in ${Date.now() - started} ms (SAMSA_TEST_BUNDLE)`);
  return dir;
}

// ---- discovery -------------------------------------------------------------------------------
function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && e.name.endsWith('.test.ts')) out.push(p);
  }
}

const all = [];
for (const r of TEST_ROOTS) walk(path.join(ROOT, r), all);
all.sort();

let selected = all;
if (filters.length > 0) {
  const keep = new Set();
  for (const f of filters) {
    const abs = path.resolve(process.cwd(), f);
    if (existsSync(abs)) {
      const isDir = statSync(abs).isDirectory();
      if (isDir) {
        // A directory outside test/ and compat-tests/ is searched too.
        const found = [];
        walk(abs, found);
        for (const t of found) keep.add(t);
      } else if (abs.endsWith('.test.ts')) {
        keep.add(abs); // an explicitly named test file runs wherever it is
      }
    } else {
      for (const t of all) if (path.relative(ROOT, t).includes(f)) keep.add(t);
    }
  }
  selected = [...keep].sort();
  if (selected.length === 0) {
    console.error(`no test files match ${filters.join(' ')}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

function head(file) {
  try {
    return readFileSync(file, 'utf8').slice(0, 2048);
  } catch {
    return '';
  }
}

function isSerial(file) {
  return head(file).includes(SERIAL_MARKER);
}

/** A file's own deadline: `@samsa-timeout SECONDS` in its first 2 KiB (never below --timeout). */
function timeoutOf(file) {
  const m = TIMEOUT_MARKER.exec(head(file));
  return Math.max(timeoutS, m ? Number(m[1]) : 0);
}

// ---- running one file ------------------------------------------------------------------------
const running = new Set(); // child processes, to kill on SIGINT/SIGTERM

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** Parses uvu 0.5's closing summary: "Total:  N", "Passed:  N", "Skipped:  N" (summed over every summary printed). */
function parseUvuSummary(output) {
  const text = output.replace(ANSI, '');
  let total = 0, passed = 0, skipped = 0, found = 0;
  const re = /^\s*Total:\s+(\d+)\s*\n\s*Passed:\s+(\d+)\s*\n\s*Skipped:\s+(\d+)\s*$/gm;
  for (const m of text.matchAll(re)) {
    found++;
    total += Number(m[1]);
    passed += Number(m[2]);
    skipped += Number(m[3]);
  }
  return found > 0 ? { total, passed, skipped } : null;
}

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const chunks = [];
    let size = 0;
    let dropped = 0;
    const keepHead = MAX_CAPTURE / 2;
    const onData = (buf) => {
      chunks.push(buf);
      size += buf.length;
      // Keep the head and a bounded tail; uvu's summary is at the very end.
      while (size > MAX_CAPTURE && chunks.length > 2) {
        const [head, second] = chunks;
        if (head.length >= keepHead) {
          dropped += second.length;
          size -= second.length;
          chunks.splice(1, 1);
        } else {
          chunks.splice(0, 2, Buffer.concat([head, second]));
        }
      }
    };
    const cpuFile = cpuDir ? path.join(cpuDir, `${cpuFiles++}.cpu`) : null;
    const argv = [process.execPath, '--import', TS_LOADER, '--import', HOOK_ERRORS, file];
    if (cpuFile) argv.unshift(GNU_TIME, '-q', '-f', '%U %S', '-o', cpuFile);
    const child = spawn(argv[0], argv.slice(1), {
      cwd: ROOT,
      detached: true, // own process group, so a timeout kills everything the test started
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SAMSA_TEST_FILE: path.relative(ROOT, file), ...(bundleDir ? { SAMSA_TEST_BUNDLE: bundleDir } : {}) },
    });
    running.add(child);
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);

    let timedOut = false;
    let exitInfo = null;
    let finished = false;
    const fileTimeoutS = timeoutOf(file);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS).unref();
    }, fileTimeoutS * 1000);

    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      running.delete(child);
      if (dropped > 0) chunks.splice(1, 0, Buffer.from(`\n[run-tests: ${dropped} bytes of output dropped here]\n`));
      const output = Buffer.concat(chunks).toString('utf8');
      const { code, signal } = exitInfo ?? { code: null, signal: null };
      resolve({ file, code, signal, timedOut, timeoutS: fileTimeoutS, output, ms: Date.now() - started, cpuS: cpuSeconds(cpuFile) });
    };
    child.on('error', (err) => {
      chunks.push(Buffer.from(`\n[run-tests: could not start: ${err.message}]\n`));
      exitInfo = { code: null, signal: null };
      finish();
    });
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal };
      // Anything the test left running in its group (a broker, a client) dies with it; this also
      // releases the output pipes those processes may hold.
      killGroup(child, 'SIGKILL');
      setTimeout(finish, KILL_GRACE_MS).unref();
    });
    child.on('close', finish);
  });
}

/** User + system seconds from GNU time's output file (null without one). */
function cpuSeconds(file) {
  if (!file) return null;
  try {
    const [user, sys] = readFileSync(file, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    return Number.isFinite(user + sys) ? user + sys : null;
  } catch {
    return null;
  }
}

function judge(r) {
  const summary = parseUvuSummary(r.output);
  let passed = summary ? summary.passed : 0;
  let failed = summary ? Math.max(0, summary.total - summary.passed) : 0;
  const skipped = summary ? summary.skipped : 0;
  const reasons = [];
  if (r.timedOut) reasons.push(`timed out after ${r.timeoutS} s`);
  else if (r.signal) reasons.push(`killed by ${r.signal}`);
  else if (r.code !== 0) reasons.push(`exit status ${r.code}`);
  if (!summary && !r.timedOut) reasons.push('no uvu summary in the output');
  if (reasons.length > 0 && failed === 0) failed = 1;
  if (r.timedOut && summary) {
    // A summary followed by a hang (open handles) still fails the file.
    failed = Math.max(failed, 1);
  }
  return { ...r, passed, failed, skipped, reasons };
}

// ---- scheduling ------------------------------------------------------------------------------
const rel = (f) => path.relative(ROOT, f);
const results = [];

function report(j) {
  const secs = (j.ms / 1000).toFixed(1);
  const mark = j.failed > 0 ? 'FAIL' : 'ok  ';
  const extra = j.skipped > 0 ? `, ${j.skipped} skipped` : '';
  const why = j.reasons.length > 0 ? ` [${j.reasons.join('; ')}]` : '';
  const cpu = j.cpuS === null ? '' : `, cpu ${j.cpuS.toFixed(1)}s`;
  console.log(`${mark} ${rel(j.file)}  ${j.passed} passed, ${j.failed} failed${extra} (${secs}s${cpu})${why}`);
}

/**
 * Runs `files`, `width` slots at a time, in their order except for one rule: files under
 * compat-tests/ (each starts a real Kafka) never run beside an `@samsa-early` file, and start as
 * soon as none is running (so the run does not end with them). Every file takes one slot (the
 * early compat suite used to take all but one: with Kafka's side recorded it keeps about one core
 * busy, like the others).
 */
function pool(files, width) {
  const isEarly = (f) => head(f).includes(EARLY_MARKER);
  const isCompat = (f) => rel(f).startsWith('compat-tests/');
  const weightOf = () => 1;
  const pending = [...files];
  let busy = 0;
  let earlyRunning = 0;
  return new Promise((resolve) => {
    const pick = () => {
      if (earlyRunning > 0 || pending.some(isEarly)) return pending.findIndex((f) => !isCompat(f));
      const compat = pending.findIndex(isCompat);
      return compat >= 0 ? compat : pending.length > 0 ? 0 : -1;
    };
    const launch = () => {
      for (;;) {
        const i = pick();
        if (i < 0) break;
        const f = pending[i];
        const w = weightOf(f);
        if (busy > 0 && busy + w > width) break;
        pending.splice(i, 1);
        busy += w;
        if (isEarly(f)) earlyRunning++;
        runFile(f).then((r) => {
          const j = judge(r);
          results.push(j);
          report(j);
          busy -= w;
          if (isEarly(f)) earlyRunning--;
          launch();
        });
      }
      if (pending.length === 0 && busy === 0) resolve();
    };
    launch();
  });
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const c of running) killGroup(c, 'SIGKILL');
    console.log(`interrupted (${sig})`);
    const passed = results.reduce((a, j) => a + j.passed, 0);
    const failed = results.reduce((a, j) => a + j.failed, 0);
    console.log(`${passed} passed, ${Math.max(1, failed)} failed`);
    process.exit(1);
  });
}

const serial = selected.filter(isSerial);
const parallel = selected.filter((f) => !serial.includes(f));
// Long files marked @samsa-early go first; compat-tests/ (each starts a real Kafka) go last, so
// they do not run beside the early ones; a stable sort keeps the order within each rank.
const rank = (f) => (head(f).includes(EARLY_MARKER) ? 0 : rel(f).startsWith('compat-tests/') ? 2 : 1);
// Within a rank, `@samsa-long` files start first, so the run does not end waiting on one of them.
const long = (f) => (head(f).includes(LONG_MARKER) ? 0 : 1);
parallel.sort((a, b) => rank(a) - rank(b) || long(a) - long(b));
const runStarted = Date.now();
const bundleDir = await makeBundle();
console.log(`run-tests: ${selected.length} file(s), ${jobs} in parallel, timeout ${timeoutS} s per file`);
await pool(parallel, jobs);
await pool(serial, 1);

const failing = results.filter((j) => j.failed > 0).sort((a, b) => a.file.localeCompare(b.file));
for (const j of failing) {
  console.log('');
  console.log(`===== ${rel(j.file)} (${j.reasons.length > 0 ? j.reasons.join('; ') : `${j.failed} failed`}) =====`);
  process.stdout.write(j.output.endsWith('\n') ? j.output : j.output + '\n');
  console.log(`===== end of ${rel(j.file)} =====`);
}

const passed = results.reduce((a, j) => a + j.passed, 0);
const failed = results.reduce((a, j) => a + j.failed, 0);
const skipped = results.reduce((a, j) => a + j.skipped, 0);
if (cpuDir) rmSync(cpuDir, { recursive: true, force: true });
if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
console.log('');
const wall = (Date.now() - runStarted) / 1000;
const cpuTotal = results.reduce((a, j) => a + (j.cpuS ?? 0), 0);
console.log(`run-tests: ${(wall / 60).toFixed(1)} min${cpuDir ? `, ${(cpuTotal / 60).toFixed(1)} CPU-min in the test files` : ''}`);
if (failing.length > 0) console.log(`failing files: ${failing.map((j) => rel(j.file)).join(' ')}`);
if (skipped > 0) console.log(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
