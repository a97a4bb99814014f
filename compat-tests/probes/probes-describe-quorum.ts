/**
 * Probes: DescribeQuorum (55), what `kafka-metadata-quorum.sh --bootstrap-server` and
 * Admin.describeMetadataQuorum send to a broker, which forwards it to the controller quorum.
 */
import type { Json } from './normalise.js';
import type { Probe } from './runner.js';

type Obj = Record<string, Json>;

/**
 * Positions and times are each broker's own: a leader epoch and high watermark above 0 become
 * placeholders, a replica's log end offset is compared with the high watermark, its timestamps by
 * whether they are set. Listener ports are the brokers' own (Kafka's is its controller listener's).
 */
function positions(j: Json): Json {
  const o = j as Obj;
  for (const t of (o.topics ?? []) as Obj[]) {
    for (const p of t.partitions as Obj[]) {
      const hw = big(p.highWatermark);
      if (typeof p.leaderEpoch === 'number' && p.leaderEpoch > 0) p.leaderEpoch = '<epoch>';
      for (const r of [...(p.currentVoters as Obj[]), ...(p.observers as Obj[])]) {
        if (hw !== null && hw >= 0n && big(r.logEndOffset) === hw) r.logEndOffset = '<high watermark>';
        for (const k of ['lastFetchTimestamp', 'lastCaughtUpTimestamp']) if ((big(r[k]) ?? 0n) > 0n) r[k] = '<time>';
      }
      if (hw !== null && hw > 0n) p.highWatermark = '<high watermark>';
    }
  }
  for (const n of (o.nodes ?? []) as Obj[]) for (const l of n.listeners as Obj[]) l.port = '<listener port>';
  return j;
}

/** An int64 as the generic normaliser leaves it ("20n"). */
function big(v: Json | undefined): bigint | null {
  return typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : null;
}

const CLUSTER_METADATA = { topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] };

function probe(id: string, version: number, about: string, body: Record<string, unknown>): Probe {
  return { id: `describe-quorum/${id}`, api: 55, version, about, body, normalise: positions };
}

export function describeQuorumProbes(): Probe[] {
  return [
    probe('v0', 0, 'the metadata partition, v0', { topics: [CLUSTER_METADATA] }),
    probe('v1', 1, 'the metadata partition, v1 (fetch and caught-up times)', { topics: [CLUSTER_METADATA] }),
    probe('v2', 2, 'the metadata partition, v2 (directory ids, nodes and listeners): what kafka-metadata-quorum.sh sends', { topics: [CLUSTER_METADATA] }),
    probe('v2-other-topic', 2, 'another topic', { topics: [{ topicName: 'probe-not-metadata', partitions: [{ partitionIndex: 0 }] }] }),
    probe('v2-other-partition', 2, 'partition 1 of the metadata topic', { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 1 }] }] }),
    probe('v2-no-topics', 2, 'no topics', { topics: [] }),
    probe('v2-two-partitions', 2, 'partitions 0 and 1', { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] }] }),
  ];
}

/** AddRaftVoter (80) and RemoveRaftVoter (81): what `kafka-metadata-quorum.sh add-controller / remove-controller` send. */
export function raftVoterProbes(): Probe[] {
  const p = (id: string, api: 80 | 81, version: number, about: string, body: Record<string, unknown>): Probe => ({ id: `raft-voter/${id}`, api, version, about, body });
  const dir = 'AAAAAAAAAAAAAAAAAAAAAg';
  const listeners = [{ name: 'CONTROLLER', host: '127.0.0.1', port: 9999 }];
  return [
    p('add-v0', 80, 0, 'add a voter (its cluster id null)', { clusterId: null, timeoutMs: 5000, voterId: 7, voterDirectoryId: dir, listeners }),
    p('add-v1', 80, 1, 'add a voter, v1 (ack_when_committed)', { clusterId: null, timeoutMs: 5000, voterId: 7, voterDirectoryId: dir, listeners, ackWhenCommitted: true }),
    p('add-wrong-cluster', 80, 1, 'add a voter naming another cluster', { clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', timeoutMs: 5000, voterId: 7, voterDirectoryId: dir, listeners, ackWhenCommitted: true }),
    p('remove-v0', 81, 0, 'remove voter 1 (the only one)', { clusterId: null, voterId: 1, voterDirectoryId: dir }),
    p('remove-unknown', 81, 0, 'remove a voter that does not exist', { clusterId: null, voterId: 42, voterDirectoryId: dir }),
  ];
}

/** UnregisterBroker (64): what `kafka-cluster.sh unregister --id N` sends. */
export function unregisterBrokerProbes(): Probe[] {
  const p = (id: string, about: string, body: Record<string, unknown>): Probe => ({ id: `unregister-broker/${id}`, api: 64, version: 0, about, body });
  return [
    p('unknown', 'a broker id that was never registered', { brokerId: 42 }),
    p('negative', 'a negative broker id', { brokerId: -1 }),
  ];
}

/** UnregisterController (94, KIP-1312): what `kafka-cluster.sh unregister-controller --id N` sends. */
export function unregisterControllerProbes(): Probe[] {
  const p = (id: string, about: string, body: Record<string, unknown>): Probe => ({ id: `unregister-controller/${id}`, api: 94, version: 0, about, body });
  return [
    p('unknown', 'a controller id that was never registered', { controllerId: 42 }),
    p('negative', 'a negative controller id', { controllerId: -1 }),
    p('active', 'the active controller itself (node 1)', { controllerId: 1 }),
  ];
}
