/**
 * Cluster features (KIP-584 / KIP-1022) as Samsa supports them: what a broker can run
 * (SupportedFeatures in ApiVersions), what a new cluster finalizes, and the checks of an
 * UpdateFeatures request (Kafka's FeatureControlManager.updateFeature, for the features Samsa
 * has; the finalized levels live in the metadata store, MetadataImage.features).
 *
 * Only features whose levels change what Samsa does are listed:
 * - transaction.version: 0-1 transactions V1; 2 transactions V2 (KIP-890 part 2): a Java 4
 *   producer then sends Produce v12 / TxnOffsetCommit v5 without AddPartitionsToTxn /
 *   AddOffsetsToTxn and EndTxn v5, and the coordinator bumps the epoch at every end.
 * - group.version 1: the KIP-848 consumer protocol (ConsumerGroupHeartbeat), which Samsa serves.
 * - share.version 1: share groups (KIP-932), which Samsa serves.
 * - eligible.leader.replicas.version 1: eligible leader replicas (KIP-966, partition-change.ts):
 *   the controller and leaders keep ELR and the last known leader in partition states; a new
 *   cluster finalizes it as Kafka 4.4 does (its bootstrap metadata.version is past 4.1-IV0), and
 *   disabling it clears every ELR (Kafka's ClearElrRecord).
 * - streams.version 1: streams groups (KIP-1071, StreamsGroupHeartbeat), which Samsa serves; below
 *   1 a heartbeat is answered UNSUPPORTED_VERSION, as Kafka 4.4 answers it.
 * Kafka also lists metadata.version and kraft.version; Samsa has no KRaft log (docs/gaps.md).
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';

export const TRANSACTION_VERSION = 'transaction.version';
export const GROUP_VERSION = 'group.version';
export const SHARE_VERSION = 'share.version';
export const STREAMS_VERSION = 'streams.version';
export const ELIGIBLE_LEADER_REPLICAS_VERSION = 'eligible.leader.replicas.version';

export interface FeatureRange {
  minVersion: number;
  maxVersion: number;
}

/** What this broker (and so its controller) can run, by feature name. */
export const SUPPORTED_FEATURES: ReadonlyMap<string, FeatureRange> = new Map([
  [GROUP_VERSION, { minVersion: 0, maxVersion: 1 }],
  [SHARE_VERSION, { minVersion: 0, maxVersion: 1 }],
  [STREAMS_VERSION, { minVersion: 0, maxVersion: 1 }],
  // 2 (V2): Produce v12, TxnOffsetCommit v5 and EndTxn v5 take the coordinator's V2 path; a
  // partition whose transactional id another broker coordinates is added with the broker-to-broker
  // AddPartitionsToTxn v5 (broker/coordinators/add-partitions-to-txn-manager.ts).
  [TRANSACTION_VERSION, { minVersion: 0, maxVersion: 2 }],
  // 1: ELR kept by the controller and leaders (partition-change.ts); 0: none, ISRs keep their last member.
  [ELIGIBLE_LEADER_REPLICAS_VERSION, { minVersion: 0, maxVersion: 1 }],
]);

/**
 * The levels a new cluster is formatted with: Kafka 4.4's (group.version 1, streams.version 1,
 * transaction.version 2, eligible.leader.replicas.version 1), but share.version 1, the highest Samsa supports (Kafka 4.4: 2).
 */
export const BOOTSTRAP_FEATURE_LEVELS: ReadonlyMap<string, number> = new Map([
  [ELIGIBLE_LEADER_REPLICAS_VERSION, 1],
  [GROUP_VERSION, 1],
  [SHARE_VERSION, 1],
  [STREAMS_VERSION, 1],
  [TRANSACTION_VERSION, 2],
]);

/** Whether streams groups may be used: streams.version 1 or higher is finalized (Kafka's isStreamsGroupProtocolEnabled). */
export function streamsGroupsEnabled(features: ReadonlyMap<string, number>): boolean {
  return (features.get(STREAMS_VERSION) ?? 0) >= 1;
}

/** The finalized transaction.version of `features` (0 when absent). */
export function transactionVersionOf(features: ReadonlyMap<string, number>): number {
  return features.get(TRANSACTION_VERSION) ?? 0;
}

/** Whether eligible leader replicas are on (eligible.leader.replicas.version >= 1; Kafka's isElrFeatureEnabled). */
export function elrEnabledIn(features: ReadonlyMap<string, number>): boolean {
  return (features.get(ELIGIBLE_LEADER_REPLICAS_VERSION) ?? 0) >= 1;
}

/** UpdateFeatures' upgrade types (FeatureUpdate.UpgradeType). */
export const UpgradeType = { UPGRADE: 1, SAFE_DOWNGRADE: 2, UNSAFE_DOWNGRADE: 3 } as const;

export interface FeatureUpdate {
  feature: string;
  maxVersionLevel: number;
  upgradeType: number;
}

export interface FeatureUpdateOutcome {
  errorCode: number;
  errorMessage: string | null;
  /** The levels to store when errorCode is NONE. */
  levels: Map<string, number>;
}

/**
 * Checks every update against the finalized levels; the first failing update fails the whole
 * request (Kafka 4.4 applies an UpdateFeatures request all or nothing). Errors are
 * INVALID_UPDATE_VERSION with Kafka's texts.
 */
export function checkFeatureUpdates(finalized: ReadonlyMap<string, number>, updates: readonly FeatureUpdate[], nodeId: number): FeatureUpdateOutcome {
  const levels = new Map<string, number>();
  const fail = (u: FeatureUpdate, why: string): FeatureUpdateOutcome => ({
    errorCode: ErrorCode.INVALID_UPDATE_VERSION,
    errorMessage: `Invalid update version ${u.maxVersionLevel} for feature ${u.feature}. ${why}`,
    levels: new Map(),
  });
  for (const u of updates) {
    if (u.upgradeType < UpgradeType.UPGRADE || u.upgradeType > UpgradeType.UNSAFE_DOWNGRADE) return fail(u, 'The controller does not support the given upgrade type.');
    const level = Math.max(0, u.maxVersionLevel);
    if (u.maxVersionLevel < 0) return fail(u, 'A feature version cannot be less than 0.');
    const range = SUPPORTED_FEATURES.get(u.feature);
    if (!range) return fail(u, `Local controller ${nodeId} does not support this feature.`);
    if (level < range.minVersion || level > range.maxVersion) {
      return fail(u, `Local controller ${nodeId} only supports versions ${range.minVersion}-${range.maxVersion}`);
    }
    const current = finalized.get(u.feature) ?? 0;
    if (level < current && u.upgradeType === UpgradeType.UPGRADE) {
      return fail(u, 'Can\'t downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.');
    }
    levels.set(u.feature, level);
  }
  return { errorCode: ErrorCode.NONE, errorMessage: null, levels };
}
