/**
 * Replication settings (Kafka's ReplicationConfigs: follower fetches, the ISR, replication
 * quotas), merged into BROKER_SETTINGS; broker.ts and replication/ read them.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

/** The one ReplicaSelector Samsa has (replication/replica-selector.ts): Kafka's own. */
export const RACK_AWARE_REPLICA_SELECTOR = 'org.apache.kafka.common.replica.RackAwareReplicaSelector';

/**
 * replica.selector.class names a class Kafka loads; Samsa can only be the one Kafka ships. Kafka's
 * ConfigDef refuses a class it cannot load with this wording at start-up.
 */
function replicaSelectorProblem(value: string | null): string | null {
  if (value === null || value === RACK_AWARE_REPLICA_SELECTOR) return null;
  return `Class ${value} could not be found (Samsa runs no Java; the only selector it has is ${RACK_AWARE_REPLICA_SELECTOR})`;
}

export const REPLICATION_SETTINGS = {
  'replica.lag.time.max.ms': {
    type: 'long', default: '30000', min: 1,
    doc: 'A follower that has not caught up to the leader\'s log end for this long leaves the ISR (the leader shrinks it with a compare-and-set on the partition epoch).',
  },
  'replica.fetch.max.bytes': {
    type: 'int', default: '1048576', min: 0,
    doc: 'Bytes a follower asks for per partition in one fetch (at least one batch is returned).',
  },
  'replica.fetch.response.max.bytes': {
    type: 'int', default: '10485760', min: 0,
    doc: 'Bytes a follower asks for in one whole fetch response.',
  },
  'replica.fetch.min.bytes': {
    type: 'int', default: '1',
    doc: 'Bytes the leader waits for before answering a follower\'s fetch (up to replica.fetch.wait.max.ms).',
  },
  'replica.fetch.wait.max.ms': {
    type: 'int', default: '500',
    doc: 'How long the leader holds a follower\'s fetch that found too little data.',
  },
  'replica.fetch.backoff.ms': {
    type: 'int', default: '1000', min: 0,
    doc: 'Pause of a replica fetcher after a failed fetch.',
  },
  'replica.socket.timeout.ms': {
    type: 'int', default: '30000',
    doc: 'How long an inter-broker request (replica fetch, forwarded controller request) waits for its answer.',
  },
  'num.replica.fetchers': {
    type: 'int', default: '1', min: 1,
    doc: 'Fetcher connections per source broker (Samsa runs one).',
  },
  'max.incremental.fetch.session.cache.slots': {
    type: 'int', default: '1000', min: 0,
    doc: 'Most incremental fetch sessions (KIP-227) this broker keeps, split evenly over 8 shards that new sessions take in turn; a full shard evicts only within itself (a session idle over 120 s, else, for a follower\'s session a consumer\'s, or for one with more partitions one with fewer that was created over 120 s ago). 0: no sessions, every fetch is answered as a full fetch.',
  },
  'replica.selector.class': {
    type: 'string', default: null, check: (v: string | null) => replicaSelectorProblem(v),
    doc: 'Which replica a consumer sending client.rack (Fetch v11+) is told to read from (KIP-392): unset, the leader; Kafka\'s org.apache.kafka.common.replica.RackAwareReplicaSelector, an in-sync replica in the client\'s rack that has the fetch offset (the leader when it is in that rack). Samsa runs no Java, so no other class is accepted.',
  },
  'replication.quota.window.num': {
    type: 'int', default: '11', min: 1,
    doc: 'Samples over which replication throttle rates (leader/follower.replication.throttled.rate) are measured.',
  },
  'replication.quota.window.size.seconds': {
    type: 'int', default: '1', min: 1,
    doc: 'Time span of each replication throttle sample.',
  },
} as const satisfies Record<string, SettingSpec>;

/** The replication settings, typed (what the room that reads them takes). */
export type ReplicationSettings = SettingsOf<typeof REPLICATION_SETTINGS>;
