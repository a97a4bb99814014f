/**
 * What one partition costs in memory: a heap snapshot of a Samsa process before and after it
 * creates PARTITIONS partitions, summarised by constructor (self sizes; the difference divided
 * by the partition count is the cost per partition), plus RSS (by mapping, bench/lib/smaps.ts) and
 * V8's heap spaces (the broker runs with bench/lib/memory-report.mjs preloaded). RSS after the
 * first snapshot includes what writing it left in malloc's heap.
 *
 *   npm run build && npx tsx bench/heap-partitions.ts [--partitions 10000] [--topics 100] [--top 30]
 *     [--keep DIR]   (keeps the two .heapsnapshot files in DIR)
 *   npx tsx bench/heap-partitions.ts --summarise BEFORE.heapsnapshot AFTER.heapsnapshot [--per 10000]
 *   npx tsx bench/heap-partitions.ts --owners AFTER.heapsnapshot [--depth 1] [--min 5000] [--per 10000]
 *     (self sizes by the chain of first holders, e.g. "_PartitionLog.epochs → _LeaderEpochCache.entries
 *     → Array.elements → array": which field of which class the bytes belong to)
 *
 * A snapshot forces a full GC first, so both sides count live objects only. Node's "native" nodes
 * include ArrayBuffer backing stores (Buffer.alloc memory lives outside the JS heap but is in the
 * snapshot as "system / JSArrayBufferData"). Figures only, no assertion.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaConn } from './lib/kafka-conn.js';
import { smapsSummary } from './lib/smaps.js';
import { procRssMiB, REPO_ROOT, sleep, startSamsa } from './lib/proc.js';

const args = process.argv.slice(2);
const strOpt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const numOpt = (name: string, def: number) => Number(strOpt(name) ?? def);
const TOP = numOpt('top', 30);

interface MemoryReport {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, { used: number; size: number; physical: number }>;
}

interface Group {
  count: number;
  bytes: number;
}

/** Self sizes of a snapshot's nodes grouped by "type:name" (constructor for objects, function name for closures). */
export function summarise(file: string): Map<string, Group> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  const { nodes, strings } = snap;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + iType]];
    let name: string;
    if (type === 'object' || type === 'closure' || type === 'native' || type === 'hidden' || type === 'synthetic') name = strings[nodes[i + iName]];
    else name = '';
    if (type === 'native' && name.startsWith('system / ')) name = name.slice(0, 40);
    const key = `${type}${name ? `:${name.length > 60 ? `${name.slice(0, 60)}…` : name}` : ''}`;
    const g = groups.get(key);
    if (g) {
      g.count++;
      g.bytes += nodes[i + iSize];
    } else groups.set(key, { count: 1, bytes: nodes[i + iSize] });
  }
  return groups;
}

/**
 * Self sizes of a snapshot's nodes grouped by who holds them: "OwnerConstructor.edge → type:name"
 * (the first strong retainer of each node), for finding which field of which class an array,
 * string or buffer belongs to. Prints the groups with at least `min` nodes.
 */
export function printOwners(file: string, per: number, min: number, top = TOP, depth = 1): void {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const { nodes, edges, strings } = snap;
  const nf = snap.snapshot.meta.node_fields;
  const ef = snap.snapshot.meta.edge_fields;
  const nodeTypes = snap.snapshot.meta.node_types[0];
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const W = nf.length;
  const EW = ef.length;
  const iType = nf.indexOf('type');
  const iName = nf.indexOf('name');
  const iSize = nf.indexOf('self_size');
  const iEdges = nf.indexOf('edge_count');
  const eType = ef.indexOf('type');
  const eName = ef.indexOf('name_or_index');
  const eTo = ef.indexOf('to_node');
  const n = nodes.length / W;
  const owner = new Int32Array(n).fill(-1);
  const ownerEdge = new Int32Array(n).fill(-1);
  let e = 0;
  for (let i = 0; i < n; i++) {
    const count = nodes[i * W + iEdges];
    for (let k = 0; k < count; k++, e += EW) {
      const t = edgeTypes[edges[e + eType]];
      if (t === 'weak' || t === 'shortcut') continue;
      const to = edges[e + eTo] / W;
      if (owner[to] === -1) {
        owner[to] = i;
        ownerEdge[to] = e;
      }
    }
  }
  const label = (i: number) => {
    const type = nodeTypes[nodes[i * W + iType]];
    const name = type === 'object' || type === 'closure' || type === 'native' ? strings[nodes[i * W + iName]].slice(0, 40) : '';
    return name ? `${type}:${name}` : type;
  };
  const edgeLabel = (i: number) => {
    const et = edgeTypes[edges[ownerEdge[i] + eType]];
    return et === 'element' || et === 'hidden' ? '[]' : strings[edges[ownerEdge[i] + eName]];
  };
  const groups = new Map<string, Group>();
  for (let i = 0; i < n; i++) {
    let key = label(i);
    // `depth` holders up the chain of first retainers.
    for (let d = 0, at = i; d < depth && owner[at] >= 0; d++, at = owner[at]) key = `${label(owner[at])}.${edgeLabel(at)} → ${key}`;
    const g = groups.get(key);
    if (g) {
      g.count++;
      g.bytes += nodes[i * W + iSize];
    } else groups.set(key, { count: 1, bytes: nodes[i * W + iSize] });
  }
  const rows = [...groups].filter(([, g]) => g.count >= min).sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
  console.log('| holder.field → type:constructor | per partition | bytes per partition |');
  console.log('|---|---|---|');
  for (const [key, g] of rows) console.log(`| ${key} | ${(g.count / per).toFixed(2)} | ${(g.bytes / per).toFixed(0)} |`);
}

export function printDiff(before: Map<string, Group>, after: Map<string, Group>, per: number, top = TOP): void {
  const rows: { key: string; count: number; bytes: number }[] = [];
  for (const [key, a] of after) {
    const b = before.get(key) ?? { count: 0, bytes: 0 };
    rows.push({ key, count: a.count - b.count, bytes: a.bytes - b.bytes });
  }
  for (const [key, b] of before) if (!after.has(key)) rows.push({ key, count: -b.count, bytes: -b.bytes });
  rows.sort((x, y) => y.bytes - x.bytes);
  const total = rows.reduce((n, r) => n + r.bytes, 0);
  console.log(`heap snapshot growth: ${(total / 1048576).toFixed(1)} MiB, ${(total / per).toFixed(0)} B per partition (${per})`);
  console.log('| type:constructor | objects per partition | bytes per partition |');
  console.log('|---|---|---|');
  for (const r of rows.slice(0, top)) console.log(`| ${r.key} | ${(r.count / per).toFixed(2)} | ${(r.bytes / per).toFixed(0)} |`);
  const rest = rows.slice(top).reduce((n, r) => n + r.bytes, 0);
  console.log(`| (the rest) | | ${(rest / per).toFixed(0)} |`);
}

function complete(file: string): boolean {
  const size = statSync(file).size;
  if (size < 2) return false;
  const fd = openSync(file, 'r');
  try {
    const tail = Buffer.alloc(Math.min(16, size));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    return tail.toString('latin1').trimEnd().endsWith('}');
  } finally {
    closeSync(fd);
  }
}

async function takeSnapshot(pid: number, dir: string, name: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 1200; i++) {
    await sleep(500);
    const fresh = readdirSync(dir).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (fresh.length) {
      const p = join(dir, fresh[0]);
      // The file appears empty and fills while the process writes it: wait until it ends the JSON
      // and its size has stopped changing.
      let size = -1;
      while (statSync(p).size !== size || size === 0 || !complete(p)) {
        size = statSync(p).size;
        await sleep(1000);
      }
      const dest = join(dir, name);
      renameSync(p, dest);
      return dest;
    }
  }
  throw new Error('no heap snapshot written');
}

async function run(): Promise<void> {
  const PARTITIONS = numOpt('partitions', 10_000);
  const TOPICS = numOpt('topics', 100);
  const keep = strOpt('keep');
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'samsa-heap-'));
  const report = join(REPO_ROOT, 'bench', 'lib', 'memory-report.mjs');
  const s = await startSamsa({ nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`, '--import', report], readyTimeoutMs: 120_000 });
  const memory = async (label: string): Promise<MemoryReport> => {
    const seen = s.output().split('memory-report ').length;
    process.kill(s.pid, 'SIGWINCH');
    for (let i = 0; i < 100 && s.output().split('memory-report ').length === seen; i++) await sleep(50);
    const line = s.output().slice(s.output().lastIndexOf('memory-report ') + 14).split('\n')[0];
    const m = JSON.parse(line) as MemoryReport;
    const mib = (n: number) => (n / 1048576).toFixed(1);
    const spaces = Object.entries(m.spaces).filter(([, v]) => v.size > 0).map(([k, v]) => `${k} ${mib(v.used)}/${mib(v.size)}`).join(', ');
    const maps = Object.entries(smapsSummary(s.pid)).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`).join(', ');
    console.log(`${label}: RSS by mapping (MiB): ${maps}`);
    console.log(`${label}: rss ${mib(m.rss)} MiB, heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, external ${mib(m.external)} (array buffers ${mib(m.arrayBuffers)}); spaces used/committed MiB: ${spaces}`);
    return m;
  };
  try {
    const per = Math.ceil(PARTITIONS / TOPICS);
    const c = await KafkaConn.connect('127.0.0.1', s.port, 5000);
    // A topic first, so code paths the partitions use are loaded on both sides.
    await c.request(19, 7, { topics: [{ name: 'warm', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 60_000, validateOnly: false });
    await sleep(2000);
    const rss0 = procRssMiB(s.pid);
    await memory('before');
    const f0 = await takeSnapshot(s.pid, dir, 'before.heapsnapshot');
    for (let first = 0; first < TOPICS; first += 10) {
      const res = await c.request(19, 7, {
        topics: Array.from({ length: Math.min(10, TOPICS - first) }, (_, i) => ({ name: `scale-${first + i}`, numPartitions: per, replicationFactor: 1, assignments: [], configs: [] })),
        timeoutMs: 600_000, validateOnly: false,
      });
      const bad = res.topics.filter((x) => x.errorCode !== 0);
      if (bad.length) throw new Error(`CreateTopics: ${bad.length} failed (${bad[0].errorCode})`);
    }
    c.close();
    await sleep(5000);
    const rss1 = procRssMiB(s.pid);
    await memory('loaded');
    const f1 = await takeSnapshot(s.pid, dir, 'after.heapsnapshot');
    const rss2 = procRssMiB(s.pid);
    await memory('after the snapshot');
    console.log(`RSS: ${rss0.toFixed(1)} MiB before, ${rss1.toFixed(1)} MiB with ${per * TOPICS} partitions (${(((rss1 - rss0) * 1048576) / (per * TOPICS)).toFixed(0)} B per partition), ${rss2.toFixed(1)} MiB after the snapshot's GC`);
    printDiff(summarise(f0), summarise(f1), per * TOPICS);
  } finally {
    await s.stop();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (args.includes('--owners')) {
  printOwners(args[args.indexOf('--owners') + 1], numOpt('per', 10_000), numOpt('min', 5000), TOP, numOpt('depth', 1));
} else if (args.includes('--summarise')) {
  const i = args.indexOf('--summarise');
  printDiff(summarise(args[i + 1]), summarise(args[i + 2]), numOpt('per', 10_000));
} else {
  await run();
}
