/**
 * Which segments a partition log may delete (Kafka's UnifiedLog.deleteOldSegments and
 * deletableSegments): pure decisions over the segment list; the log deletes what they pick.
 */
import { hasCleanupPolicy, type LogConfig } from './log-config.js';
import type { LogSegment } from './log-segment.js';

/** Whether `seg` (followed by `next`, undefined for the active segment) should go. */
export type SegmentCheck = (seg: LogSegment, next: LogSegment | undefined) => Promise<boolean>;

/** Segments wholly below the log start offset. */
export const belowLogStart = (logStartOffset: number): SegmentCheck => async (_seg, next) => next !== undefined && next.baseOffset <= logStartOffset;

/** What a retention check may delete, and whether the active segment should roll first. */
export interface Deletable {
  segments: LogSegment[];
  /**
   * Tiered storage: the non-empty active segment matched the check but cannot go before it is
   * copied, and only closed segments are copied: roll it (Kafka: "Rolling the active segment to
   * make it eligible for deletion").
   */
  rollActive: boolean;
}

/**
 * The longest prefix of `segments` matching `check`, wholly below the high watermark, never an
 * empty active segment; with `copied` (tiered storage) only segments already in the remote tier,
 * given the segment's upper bound offset (Kafka's isSegmentEligibleForDeletion).
 */
export async function deletablePrefix(segments: readonly LogSegment[], logEndOffset: number, highWatermark: number, check: SegmentCheck, copied?: (upperBound: number) => boolean): Promise<Deletable> {
  const out: LogSegment[] = [];
  let rollActive = false;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const next = segments[i + 1];
    const upperBound = next ? next.baseOffset : logEndOffset;
    const lastAndEmpty = !next && seg.sizeBytes === 0;
    const matched = highWatermark >= upperBound && (await check(seg, next));
    if (matched && copied && !next && seg.sizeBytes > 0) rollActive = true;
    if (!matched || lastAndEmpty || (copied && !copied(upperBound))) break;
    out.push(seg);
  }
  return { segments: out, rollActive };
}

/**
 * The retention checks after the log start one, in Kafka's order: retention.bytes (the oldest
 * segments while the log is larger than it), then retention.ms (segments whose newest record is
 * older). Only with cleanup.policy including "delete"; a negative setting is no limit.
 */
export function retentionChecks(config: LogConfig, sizeBytes: number, nowMs: number): SegmentCheck[] {
  if (!hasCleanupPolicy(config.cleanupPolicy, 'delete')) return [];
  const checks: SegmentCheck[] = [];
  if (config.retentionBytes >= 0) {
    let excess = sizeBytes - config.retentionBytes;
    checks.push(async (seg) => {
      if (excess - seg.sizeBytes < 0) return false;
      excess -= seg.sizeBytes;
      return true;
    });
  }
  if (config.retentionMs >= 0) checks.push(async (seg) => nowMs - (await seg.largestTimestamp()) > config.retentionMs);
  return checks;
}

/**
 * Tiered storage's local retention (Kafka's UnifiedLog with remote storage): local.retention.ms /
 * .bytes (-2: the total retention setting) over the local segments; deletablePrefix's `copied`
 * keeps the segments not yet in the remote tier.
 */
export function localRetentionChecks(config: LogConfig, localSizeBytes: number, nowMs: number): SegmentCheck[] {
  const local: LogConfig = {
    ...config,
    retentionMs: config.localRetentionMs === undefined || config.localRetentionMs === -2 ? config.retentionMs : config.localRetentionMs,
    retentionBytes: config.localRetentionBytes === undefined || config.localRetentionBytes === -2 ? config.retentionBytes : config.localRetentionBytes,
  };
  return retentionChecks(local, localSizeBytes, nowMs);
}
