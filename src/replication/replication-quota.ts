/**
 * Replication throttles (Kafka's ReplicationQuotaManager, KIP-73).
 *
 * Each broker has two quotas: `leader` bounds the bytes it sends to followers of throttled
 * partitions (the Fetch handler's follower branch), `follower` the bytes its replica fetchers
 * copy for throttled partitions. The bound comes from the dynamic broker configs
 * `leader.replication.throttled.rate` / `follower.replication.throttled.rate` (this broker's
 * value, else the cluster default `<default>`, else Long.MAX_VALUE = off). Which partitions are
 * throttled comes from the topic configs `leader.replication.throttled.replicas` /
 * `follower.replication.throttled.replicas`: "*" (all) or "partition:broker" pairs, of which a
 * broker takes the partitions listed with its own id.
 *
 * The rate is Kafka's Rate over a SampledStat: `replication.quota.window.num` samples of
 * `replication.quota.window.size.seconds` each; bytes / elapsed time since the oldest live sample,
 * the elapsed time padded to at least (samples - 1) windows, so a burst at the start of a quiet
 * period is not measured over a few milliseconds. The quota is exceeded while rate > bound.
 * Recording never checks; callers ask `isQuotaExceeded()` before sending or asking for data.
 */
import type { Clock } from '../clock.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import { DEFAULT_BROKER_CONFIGS } from '../cluster/metadata-store.js';
import { SampledRate } from '../sampled-rate.js';

export const LEADER_THROTTLED_RATE = 'leader.replication.throttled.rate';
export const FOLLOWER_THROTTLED_RATE = 'follower.replication.throttled.rate';
export const LEADER_THROTTLED_REPLICAS = 'leader.replication.throttled.replicas';
export const FOLLOWER_THROTTLED_REPLICAS = 'follower.replication.throttled.replicas';
/** The bound of moves between one broker's log dirs (storage/log-dir-move.ts), a dynamic broker config too. */
export const ALTER_LOG_DIRS_RATE = 'replica.alter.log.dirs.io.max.bytes.per.second';
/** The dynamic broker configs Samsa accepts (AlterConfigs / IncrementalAlterConfigs on BROKER), sorted by name. */
export const DYNAMIC_BROKER_CONFIG_NAMES: readonly string[] = [FOLLOWER_THROTTLED_RATE, LEADER_THROTTLED_RATE];
/** Kafka's DefaultReplicationThrottledRate (Long.MAX_VALUE): unthrottled. */
export const UNTHROTTLED_TEXT = '9223372036854775807';

/** One direction's quota (leader or follower) of one broker. */
export class ReplicationQuota {
  /** Bytes per second; Infinity when unthrottled. */
  private bound = Infinity;
  private readonly rate: SampledRate;

  constructor(samples: number, private readonly windowMs: number, private readonly clock: Clock) {
    this.rate = new SampledRate(samples, windowMs, clock.now());
  }

  /** Whether a bound is set (the one check the unthrottled fetch paths make per partition). */
  get active(): boolean {
    return this.bound !== Infinity;
  }

  get upperBound(): number {
    return this.bound;
  }

  /** A bound in bytes/s; Long.MAX_VALUE (or anything not finite) turns the quota off. */
  updateQuota(bytesPerSecond: number): void {
    this.bound = Number.isFinite(bytesPerSecond) && bytesPerSecond < Number.MAX_SAFE_INTEGER ? bytesPerSecond : Infinity;
  }

  record(bytes: number): void {
    if (bytes > 0) this.rate.record(bytes, this.clock.now());
  }

  isQuotaExceeded(): boolean {
    return this.bound !== Infinity && this.rate.rate(this.clock.now()) > this.bound;
  }

  /** How long until the rate falls to the bound if nothing more is recorded (0 when below it). */
  msUntilBelow(): number {
    if (this.bound === Infinity) return 0;
    const r = this.rate.rate(this.clock.now());
    if (r <= this.bound) return 0;
    return Math.min(this.windowMs, Math.ceil(((r - this.bound) / this.bound) * this.windowMs));
  }

  /** The measured rate (bytes/s; tests, metrics). */
  measure(): number {
    return this.rate.rate(this.clock.now());
  }
}

interface ParsedReplicas {
  all: boolean;
  partitions: Set<number>;
}

/**
 * Whether `partition` is throttled for `brokerId` by a `*.replication.throttled.replicas` value
 * ("*", or "p:b" pairs, as Kafka's parseThrottledPartitions reads them). Parsed values are
 * memoised, so a throttled topic costs a map lookup per partition.
 */
export class ThrottledReplicas {
  private readonly memo = new Map<string, ParsedReplicas>();

  constructor(private readonly brokerId: number) {}

  isThrottled(value: string | undefined, partition: number): boolean {
    if (value === undefined || value === '') return false;
    let parsed = this.memo.get(value);
    if (!parsed) {
      parsed = parseThrottledReplicas(value, this.brokerId);
      if (this.memo.size > 1000) this.memo.clear();
      this.memo.set(value, parsed);
    }
    return parsed.all || parsed.partitions.has(partition);
  }
}

function parseThrottledReplicas(value: string, brokerId: number): ParsedReplicas {
  const out: ParsedReplicas = { all: false, partitions: new Set() };
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '*') out.all = true;
    const m = /^(\d+):(\d+)$/.exec(entry);
    if (m && Number(m[2]) === brokerId) out.partitions.add(Number(m[1]));
  }
  return out;
}

/** A broker's effective value of a dynamic broker config: its own, else the cluster default. */
export function dynamicBrokerConfig(metadataCache: Pick<MetadataCache, 'brokerConfigs'>, nodeId: number, name: string): string | undefined {
  return metadataCache.brokerConfigs.get(String(nodeId))?.[name] ?? metadataCache.brokerConfigs.get(DEFAULT_BROKER_CONFIGS)?.[name];
}

/** Both quotas of a broker, following the dynamic broker configs in the metadata cache. */
export class ReplicationQuotas {
  readonly leader: ReplicationQuota;
  readonly follower: ReplicationQuota;
  readonly throttled: ThrottledReplicas;

  constructor(readonly nodeId: number, samples: number, windowMs: number, clock: Clock) {
    this.leader = new ReplicationQuota(samples, windowMs, clock);
    this.follower = new ReplicationQuota(samples, windowMs, clock);
    this.throttled = new ThrottledReplicas(nodeId);
  }

  /** Reads the rates from the cache now and after every change (Kafka's BrokerConfigHandler). */
  follow(metadataCache: MetadataCache): void {
    const update = () => {
      this.leader.updateQuota(Number(dynamicBrokerConfig(metadataCache, this.nodeId, LEADER_THROTTLED_RATE) ?? Infinity));
      this.follower.updateQuota(Number(dynamicBrokerConfig(metadataCache, this.nodeId, FOLLOWER_THROTTLED_RATE) ?? Infinity));
    };
    update();
    metadataCache.on('change', (c) => {
      if (c.resynced || c.events.some((e) => e.kind === 'brokerConfig')) update();
    });
  }
}
