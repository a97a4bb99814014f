/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time, self time per
 * source file / category, and inclusive time of selected Samsa functions.
 *
 *   npx tsx bench/cpuprofile-summary.ts PROFILE.cpuprofile [--top 25] [--markdown] [--inclusive REGEX]
 *
 * --inclusive: which source files count as Samsa's in the inclusive table (default ^dist/src/,
 * the tsc build; `dist/chunks/` for the esbuild bundle the benchmarks run).
 *
 * Self time of a function = time of the samples whose top frame is that function (summed over every
 * call site). "(idle)" is the event loop waiting, "(garbage collector)" GC on the main thread,
 * "(program)" native work V8 does not attribute (e.g. libuv, write syscalls).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './lib/proc.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function shortUrl(url: string): string {
  if (!url) return '';
  let p = url;
  if (p.startsWith('file://')) {
    try {
      p = fileURLToPath(p);
    } catch {
      /* keep */
    }
  }
  if (p.startsWith(REPO_ROOT)) return relative(REPO_ROOT, p);
  return p;
}

function label(cf: CallFrame): string {
  const name = cf.functionName || '(anonymous)';
  const u = shortUrl(cf.url);
  return u ? `${name} ${u}:${cf.lineNumber + 1}` : name;
}

function category(cf: CallFrame): string {
  const u = shortUrl(cf.url);
  if (!u) return cf.functionName.startsWith('(') ? cf.functionName : '(native/builtin)';
  if (u.startsWith('node:')) return u;
  if (u.startsWith('dist/')) return u;
  if (u.includes('node_modules')) return u.replace(/^.*node_modules\//, 'node_modules/');
  return u;
}

export interface Summary {
  totalMs: number;
  top: { label: string; ms: number; pct: number }[];
  byFile: { file: string; ms: number; pct: number }[];
  inclusive: { label: string; ms: number; pct: number }[];
}

export function summarise(profile: CpuProfile, topN = 25, inclusiveMatch: RegExp = /^dist\/src\//): Summary {
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) byId.set(n.id, n);
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time between sample i-1 and sample i; attribute it to sample i.
  for (let i = 0; i < profile.samples.length; i++) {
    const d = profile.timeDeltas[i] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(0, d));
  }
  let total = 0;
  for (const v of selfUs.values()) total += v;
  const fnSelf = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  const fnIncl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    const l = label(n.callFrame);
    fnSelf.set(l, (fnSelf.get(l) ?? 0) + us);
    const c = category(n.callFrame);
    fileSelf.set(c, (fileSelf.get(c) ?? 0) + us);
    // Inclusive: every distinct Samsa function on this sample's stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = byId.get(cur)!.callFrame;
      if (!inclusiveMatch.test(shortUrl(cf.url))) continue;
      const k = label(cf);
      if (seen.has(k)) continue;
      seen.add(k);
      fnIncl.set(k, (fnIncl.get(k) ?? 0) + us);
    }
  }
  const rank = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return {
    totalMs: total / 1000,
    top: rank(fnSelf, topN).map(([l, us]) => ({ label: l, ms: us / 1000, pct: (100 * us) / total })),
    byFile: rank(fileSelf, 15).map(([f, us]) => ({ file: f, ms: us / 1000, pct: (100 * us) / total })),
    inclusive: rank(fnIncl, topN).map(([l, us]) => ({ label: l, ms: us / 1000, pct: (100 * us) / total })),
  };
}

function render(s: Summary, name: string): string {
  const out: string[] = [];
  out.push(`### ${name}: ${s.totalMs.toFixed(0)} ms sampled`);
  out.push('');
  out.push('| self ms | self % | function |');
  out.push('|---|---|---|');
  for (const t of s.top) out.push(`| ${t.ms.toFixed(0)} | ${t.pct.toFixed(1)} | \`${t.label}\` |`);
  out.push('');
  out.push('| self ms | self % | file / category |');
  out.push('|---|---|---|');
  for (const f of s.byFile) out.push(`| ${f.ms.toFixed(0)} | ${f.pct.toFixed(1)} | \`${f.file}\` |`);
  out.push('');
  out.push('| inclusive ms | inclusive % | Samsa function (time on stack) |');
  out.push('|---|---|---|');
  for (const t of s.inclusive) out.push(`| ${t.ms.toFixed(0)} | ${t.pct.toFixed(1)} | \`${t.label}\` |`);
  return out.join('\n');
}

const isMain = process.argv[1] && /cpuprofile-summary\.(ts|js)$/.test(process.argv[1]);
if (isMain) {
  const args = process.argv.slice(2);
  let top = 25;
  let inclusive: RegExp | undefined;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--top') top = Number(args[++i]);
    else if (args[i] === '--inclusive') inclusive = new RegExp(args[++i]);
    else if (args[i] === '--markdown') continue;
    else files.push(args[i]);
  }
  if (files.length === 0) {
    process.stderr.write('usage: tsx bench/cpuprofile-summary.ts PROFILE.cpuprofile [--top N]\n');
    process.exit(2);
  }
  for (const f of files) {
    const profile = JSON.parse(readFileSync(f, 'utf8')) as CpuProfile;
    process.stdout.write(render(summarise(profile, top, inclusive), f) + '\n\n');
  }
}
