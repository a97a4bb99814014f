/**
 * `samsa log-dirs --log-dir DIR[,DIR...]`: per partition of a broker's log dirs (several, as
 * log.dirs lists them), its size, the cleaner's dirty ratio and when it was last cleaned, read
 * from the files (the broker may be running or stopped).
 *
 * Why a local read and not a request: Kafka has no protocol field for either figure
 * (DescribeLogDirs carries sizes only; Kafka shows them as JMX metrics), and everything needed is
 * in Kafka's formats: the segment files (`<base>.log`, whose names are their base offsets), the
 * log dir's `cleaner-offset-checkpoint` (first dirty offsets) and `log-start-offset-checkpoint`,
 * and the topic's cleanup.policy in `samsa-metadata.json` when the broker keeps its metadata
 * there. The last cleaning time is the mtime of the partition's first segment (a pass rewrites
 * every segment from the log start on). A log dir of the layout before issue 19 (and a log opened
 * on its own) has these checkpoints in each partition directory, where the cleaner offset file's
 * own mtime is the last cleaning time.
 *
 * The dirty ratio is the cleaner's (log-cleaner.ts `cleanable`): bytes of the segments below the
 * active one at or past the first dirty offset, over the bytes below the active one. Unlike the
 * broker it cannot see the high watermark, open transactions or min.compaction.lag.ms, which
 * may hold segments back from a pass: the figure is an upper bound of what the next pass cleans.
 */
import * as path from 'node:path';
import { nodeFs, type Fs } from '../storage/fs.js';
import { readCheckpoint } from '../storage/checkpoint-file.js';
import { readOffsetCheckpointFile } from '../storage/log-dir-checkpoints.js';
import { CLEANER_OFFSET_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, RECOVERY_POINT_CHECKPOINT_FILE } from '../storage/file-names.js';
import { UsageError, bool, flags, parseArgs } from './args.js';
import type { Io } from './commands.js';

export interface PartitionCleaning {
  /** The log dir holding the partition. */
  logDir: string;
  topic: string;
  partition: number;
  /** cleanup.policy from the metadata file, null when unknown (no file, or not set: the broker default). */
  cleanupPolicy: string | null;
  segments: number;
  sizeBytes: number;
  firstDirtyOffset: number;
  cleanBytes: number;
  dirtyBytes: number;
  dirtyRatio: number;
  /** mtime of cleaner-offset-checkpoint, -1 if the partition was never cleaned. */
  lastCleanedMs: number;
}

const PARTITION_DIR = /^(.+)-(\d+)$/;
const LOG_FILE = /^(\d{20})\.log$/;

async function offsetFrom(fs: Fs, file: string, topic: string, partition: number): Promise<number | null> {
  try {
    const rows = await readCheckpoint(fs, file);
    const v = Number(rows?.find((r) => r[0] === topic && Number(r[1]) === partition)?.[2]);
    return Number.isSafeInteger(v) && v >= 0 ? v : null;
  } catch {
    return null;
  }
}

async function policies(fs: Fs, logDir: string): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  try {
    const data = JSON.parse((await fs.readFile(path.join(logDir, 'samsa-metadata.json'))).toString('utf8')) as { topics?: { name: string; configs?: Record<string, string> }[] };
    for (const t of data.topics ?? []) out.set(t.name, t.configs?.['cleanup.policy'] ?? null);
  } catch {
    // No local metadata (etcd mode, or not written yet): policies stay unknown.
  }
  return out;
}

/**
 * The cleaning figures of every partition directory in `logDir` (optionally only `topics`);
 * `metadataDir` holds samsa-metadata.json (the first of log.dirs).
 */
export async function describeLogDir(fs: Fs, logDir: string, topics: readonly string[] = [], metadataDir = logDir): Promise<PartitionCleaning[]> {
  const policy = await policies(fs, metadataDir);
  // The log dir's files (one for all partitions), when the log dir has them.
  const shared = (await readOffsetCheckpointFile(fs, path.join(logDir, RECOVERY_POINT_CHECKPOINT_FILE))) !== null
    ? {
      logStart: (await readOffsetCheckpointFile(fs, path.join(logDir, LOG_START_OFFSET_CHECKPOINT_FILE))) ?? new Map<string, number>(),
      cleaner: (await readOffsetCheckpointFile(fs, path.join(logDir, CLEANER_OFFSET_CHECKPOINT_FILE))) ?? new Map<string, number>(),
    }
    : null;
  const out: PartitionCleaning[] = [];
  for (const name of (await fs.readdir(logDir)).sort()) {
    const m = PARTITION_DIR.exec(name);
    if (!m) continue;
    const [, topic, p] = m;
    if (topics.length > 0 && !topics.includes(topic!)) continue;
    const dir = path.join(logDir, name);
    if (!(await fs.stat(dir)).isDirectory) continue;
    const partition = Number(p);
    const segs: { base: number; size: number }[] = [];
    for (const f of await fs.readdir(dir)) {
      const l = LOG_FILE.exec(f);
      if (l) segs.push({ base: Number(l[1]), size: (await fs.stat(path.join(dir, f))).size });
    }
    if (segs.length === 0) continue;
    segs.sort((a, b) => a.base - b.base);
    const checkpointPath = path.join(dir, CLEANER_OFFSET_CHECKPOINT_FILE);
    const logStart = (shared ? shared.logStart.get(name) ?? null : await offsetFrom(fs, path.join(dir, LOG_START_OFFSET_CHECKPOINT_FILE), topic!, partition)) ?? segs[0]!.base;
    const checkpoint = shared ? shared.cleaner.get(name) ?? null : await offsetFrom(fs, checkpointPath, topic!, partition);
    const cleanedFile = shared ? path.join(dir, `${String(segs[0]!.base).padStart(20, '0')}.log`) : checkpointPath;
    const firstDirty = Math.max(checkpoint ?? logStart, logStart);
    let cleanBytes = 0;
    let dirtyBytes = 0;
    for (let i = 0; i < segs.length - 1; i++) {
      if (segs[i + 1]!.base <= firstDirty) cleanBytes += segs[i]!.size;
      else dirtyBytes += segs[i]!.size;
    }
    const total = cleanBytes + dirtyBytes;
    out.push({
      logDir, topic: topic!, partition, cleanupPolicy: policy.get(topic!) ?? null, segments: segs.length,
      sizeBytes: segs.reduce((n, s) => n + s.size, 0), firstDirtyOffset: firstDirty, cleanBytes, dirtyBytes,
      dirtyRatio: total > 0 ? dirtyBytes / total : 0,
      lastCleanedMs: checkpoint === null ? -1 : (await fs.stat(cleanedFile)).mtimeMs,
    });
  }
  return out;
}

export const LOG_DIRS_HELP = `usage: samsa log-dirs --log-dir DIR[,DIR...] [--topic NAME ...] [--json]
  Per partition of a broker's log dirs (comma-separated or repeated, as log.dirs): size, segments, the log cleaner's first dirty offset,
  dirty bytes and dirty ratio, and the last cleaning time (read from the files; the broker may
  be running). --json prints one object per partition.
`;

function bytes(n: number): string {
  return n >= 1 << 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

export async function logDirsCommand(argv: string[], io: Io, fs: Fs = nodeFs): Promise<number> {
  const p = parseArgs(argv, { 'log-dir': { value: true, repeat: true }, topic: { value: true, repeat: true }, json: {}, help: { alias: 'h' } });
  if (bool(p, 'help')) {
    io.out(LOG_DIRS_HELP);
    return 0;
  }
  const dirs = [...flags(p, 'log-dir'), ...p.positionals].flatMap((d) => d.split(',')).map((d) => d.trim()).filter((d) => d.length > 0);
  if (dirs.length === 0) throw new UsageError('log-dirs needs --log-dir DIR');
  const rows: PartitionCleaning[] = [];
  for (const logDir of dirs) {
    if (!(await fs.exists(logDir))) throw new Error(`${logDir}: no such directory`);
    rows.push(...(await describeLogDir(fs, logDir, flags(p, 'topic'), dirs[0])));
  }
  if (bool(p, 'json')) {
    for (const r of rows) io.out(`${JSON.stringify(r)}\n`);
    return 0;
  }
  const several = dirs.length > 1;
  const cells = [[...(several ? ['LOG-DIR'] : []), 'TOPIC', 'PARTITION', 'POLICY', 'SEGMENTS', 'SIZE', 'FIRST-DIRTY', 'DIRTY', 'DIRTY-RATIO', 'LAST-CLEANED']];
  for (const r of rows) {
    cells.push([
      ...(several ? [r.logDir] : []), r.topic, String(r.partition), r.cleanupPolicy ?? 'default', String(r.segments), bytes(r.sizeBytes), String(r.firstDirtyOffset),
      bytes(r.dirtyBytes), r.dirtyRatio.toFixed(2), r.lastCleanedMs < 0 ? '-' : new Date(r.lastCleanedMs).toISOString(),
    ]);
  }
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  io.out(cells.map((c) => c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i]!))).join('  ')).join('\n') + '\n');
  return 0;
}
