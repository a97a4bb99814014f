/**
 * librdkafka's load generator (`rdk-bench` from ../shared/bench-peers, or $BENCH_PEERS) for
 * benchmarks that drive a broker with it: the read-only peers folder is copied to a scratch
 * directory and built there (gcc + librdkafka-dev); `run` parses its one-line JSON summary.
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './proc.js';
import { runCmd } from './run.js';

export interface RdkBenchResult {
  ok: boolean;
  msgsPerS: number;
  mibPerS: number;
  p50: number;
  p99: number;
  error?: string;
}

export interface RdkBench {
  bin: string;
  /** One rdk-bench run (`produce ...` or `consume ...`) against `bootstrap`, bounded by `timeLimitS`. */
  run(args: string[], bootstrap: string, timeLimitS: number, expected: number): Promise<RdkBenchResult>;
  cleanup(): void;
}

/** Builds rdk-bench; resolves with a reason instead when this machine cannot. */
export async function buildRdkBench(peers = process.env.BENCH_PEERS ?? resolve(REPO_ROOT, '..', 'shared', 'bench-peers')): Promise<RdkBench | { skipped: string }> {
  if (!existsSync(join(peers, 'build.sh'))) return { skipped: `no ${peers}/build.sh (set BENCH_PEERS)` };
  const scratch = mkdtempSync(join(tmpdir(), 'rdk-bench-'));
  const dir = join(scratch, 'bp');
  const cleanup = () => rmSync(scratch, { recursive: true, force: true });
  try {
    cpSync(peers, dir, { recursive: true, filter: (src) => !/\/(build|results|node_modules|\.tmp)$/.test(src) });
    const writable = (p: string) => {
      chmodSync(p, statSync(p).mode | 0o200);
      if (statSync(p).isDirectory()) for (const e of readdirSync(p)) writable(join(p, e));
    };
    writable(dir);
  } catch (err) {
    cleanup();
    return { skipped: `cannot copy ${peers}: ${(err as Error).message}` };
  }
  // librdkafka's headers (Debian's librdkafka-dev) are installed when missing, as the test command installs what it needs.
  if (!existsSync('/usr/include/librdkafka/rdkafka.h')) {
    const apt = await runCmd('bash', ['-c', `. ${JSON.stringify(join(REPO_ROOT, 'tools', 'lib', 'apt-install.sh'))} && apt_install rdk-bench librdkafka-dev gcc`], { timeoutMs: 600_000 });
    if (apt.code !== 0) {
      cleanup();
      return { skipped: `librdkafka-dev missing and not installable: ${apt.stderr.trim().split('\n').slice(-1)[0]}` };
    }
  }
  const r = await runCmd('bash', ['build.sh'], { cwd: dir, timeoutMs: 120_000 });
  const bin = join(dir, 'build', 'rdk-bench');
  if (r.code !== 0 || !existsSync(bin)) {
    cleanup();
    return { skipped: `build.sh failed (needs gcc and librdkafka-dev): ${(r.stderr.trim() || r.stdout.trim()).split('\n').slice(-1)[0]}` };
  }
  return {
    bin,
    cleanup,
    async run(args, bootstrap, timeLimitS, expected) {
      const res = await runCmd(bin, [...args, '-b', bootstrap, '-T', String(timeLimitS), '-q'], { timeoutMs: (timeLimitS + 30) * 1000 });
      let j: Record<string, any> = {};
      try {
        j = JSON.parse(res.stdout.trim().split('\n').pop() ?? '');
      } catch {
        j = {};
      }
      const ok = res.code === 0 && j.timed_out === false && Number(j.ok) >= expected;
      return {
        ok,
        msgsPerS: ok ? Number(j.msgs_per_s) : NaN,
        mibPerS: ok ? Number(j.mib_per_s) : NaN,
        p50: Number(j.lat_ms?.p50 ?? NaN),
        p99: Number(j.lat_ms?.p99 ?? NaN),
        ...(ok ? {} : { error: `rc=${res.code} ok=${j.ok ?? '?'} ${j.first_error ?? ''} ${res.stderr.trim().split('\n').slice(-1)[0] ?? ''}`.trim() }),
      };
    },
  };
}
