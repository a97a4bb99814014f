/**
 * A segment in the remote tier and where its objects live (Kafka's RemoteLogSegmentMetadata).
 *
 * Layout under `samsa.remote.s3.prefix`, one folder per partition of a topic id (a topic deleted
 * and created again never reads the old one's data):
 *
 *   <prefix><topic>-<topicId>/<partition>/<baseOffset, 20 digits>-<leaderEpoch>-<segmentId>.<ext>
 *
 * with ext `log`, `index`, `timeindex`, `txnindex`, `snapshot` (when the producer snapshot was
 * still on disk), `leader-epoch-checkpoint`, and last `manifest`: this JSON, written with
 * `If-None-Match: *`. The manifest is the remote log metadata (what Kafka keeps in the
 * `__remote_log_metadata` topic, kept here beside the data, so any broker of any cluster layout
 * lists the same truth): a segment exists once its manifest does. A broker killed mid-upload
 * leaves objects without a manifest: never read, and deleted by the next leader once older than
 * the orphan age. Deletion removes the manifest first.
 *
 * The leader epoch in the key is the uploader's: two leaders (a zombie and its successor) never
 * write the same key, and readers keep only segments whose epochs agree with their own log's
 * leader-epoch lineage (`consistentWithLineage`, Kafka's isRemoteSegmentWithinLeaderEpochs).
 */
import type { EpochEntry } from '../storage/leader-epoch-cache.js';

export const MANIFEST_EXT = 'manifest';
export const SEGMENT_EXTS = ['log', 'index', 'timeindex', 'txnindex', 'snapshot', 'leader-epoch-checkpoint'] as const;
export type SegmentExt = (typeof SEGMENT_EXTS)[number] | typeof MANIFEST_EXT;

export interface RemoteSegment {
  version: 1;
  topic: string;
  topicId: string;
  partition: number;
  segmentId: string;
  baseOffset: number;
  endOffset: number;
  maxTimestampMs: number;
  /** The uploading leader's epoch and broker. */
  leaderEpoch: number;
  brokerId: number;
  /** The leader-epoch checkpoint as of endOffset (its entries up to endOffset). */
  leaderEpochs: EpochEntry[];
  /** Bytes of the .log object. */
  sizeBytes: number;
  hasSnapshot: boolean;
  createdMs: number;
}

/** `<prefix><topic>-<topicId>/<partition>/`: every object of the partition starts with it. */
export function partitionPrefix(prefix: string, topic: string, topicId: string, partition: number): string {
  return `${prefix}${topic}-${topicId}/${partition}/`;
}

export function segmentKey(partPrefix: string, s: Pick<RemoteSegment, 'baseOffset' | 'leaderEpoch' | 'segmentId'>, ext: SegmentExt): string {
  return `${partPrefix}${String(s.baseOffset).padStart(20, '0')}-${s.leaderEpoch}-${s.segmentId}.${ext}`;
}

/** The segment id of an object key of the partition (null for a key of another shape). */
export function segmentIdOfKey(key: string): string | null {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const m = /^\d{20}-\d+-([A-Za-z0-9_-]+)\.[a-z-]+$/.exec(name);
  return m ? m[1] : null;
}

export function isManifestKey(key: string): boolean {
  return key.endsWith(`.${MANIFEST_EXT}`);
}

export function parseManifest(bytes: Buffer): RemoteSegment | null {
  try {
    const m = JSON.parse(bytes.toString('utf8')) as RemoteSegment;
    if (m.version !== 1 || !Number.isSafeInteger(m.baseOffset) || !Number.isSafeInteger(m.endOffset) || !Array.isArray(m.leaderEpochs)) return null;
    return m;
  } catch {
    return null;
  }
}

/** The epochs of `entries` that cover offsets in [base, end], each with the first of them it covers. */
export function epochsWithin(entries: readonly EpochEntry[], base: number, end: number): EpochEntry[] {
  const out: EpochEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const nextStart = i + 1 < entries.length ? entries[i + 1].startOffset : Number.MAX_SAFE_INTEGER;
    if (nextStart <= base || entries[i].startOffset > end) continue;
    out.push({ epoch: entries[i].epoch, startOffset: Math.max(base, entries[i].startOffset) });
  }
  return out;
}

/**
 * Whether a remote segment's data is the data of a log with this leader-epoch lineage (Kafka's
 * isRemoteSegmentWithinLeaderEpochs): each epoch of the segment starts where the lineage says
 * (its first may have started before the segment), and the segment ends before the lineage's
 * next epoch begins. A segment a zombie leader wrote past the point where a new leader took over
 * fails it.
 */
export function consistentWithLineage(seg: RemoteSegment, lineage: readonly EpochEntry[], logEndOffset: number): boolean {
  // Below the lineage's first entry nothing can be told (a replica rebuilt from a later segment).
  if (lineage.length === 0 || seg.endOffset < lineage[0].startOffset) return seg.endOffset < logEndOffset;
  const own = epochsWithin(seg.leaderEpochs, seg.baseOffset, seg.endOffset);
  if (own.length === 0) return false;
  const mine = epochsWithin(lineage, seg.baseOffset, seg.endOffset);
  if (mine.length !== own.length) return false;
  for (let i = 0; i < own.length; i++) {
    // The first epoch may have begun before the segment, or before what the lineage still holds.
    if (own[i].epoch !== mine[i].epoch || (i > 0 && own[i].startOffset !== mine[i].startOffset)) return false;
  }
  return seg.endOffset < logEndOffset;
}

/** Kafka's leader-epoch-checkpoint text for these entries. */
export function epochCheckpointBytes(entries: readonly EpochEntry[]): Buffer {
  return Buffer.from(['0', String(entries.length), ...entries.map((e) => `${e.epoch} ${e.startOffset}`)].join('\n') + '\n', 'utf8');
}
