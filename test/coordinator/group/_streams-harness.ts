/**
 * Streams groups (KIP-1071) on a manual clock: a group coordinator with in-memory offsets logs
 * and topics, and a simulated Streams member that reconciles as the Java client does (drops
 * revoked tasks at once, takes new ones, reports what it owns in its next heartbeat).
 * Not a test file (no `.test.ts`).
 */
import { ManualClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/logger.js';
import { GroupCoordinator, MemoryOffsetsTopic } from '../../../src/coordinator/group/group-coordinator.js';
import { defaultGroupConfig, type GroupConfig } from '../../../src/coordinator/group/group-config.js';
import { MemoryTopicView } from '../../../src/coordinator/group/topic-view.js';
import type { GroupConfigLookup, ResolvedGroupConfig } from '../../../src/coordinator/group/group-configs.js';
import type { StreamsGroupHeartbeatRequest, Topology } from '../../../src/protocol/generated/messages/streams-group-heartbeat-request.js';
import type { StreamsGroupHeartbeatResponse } from '../../../src/protocol/generated/messages/streams-group-heartbeat-response.js';
import type { StreamsHeartbeatResult } from '../../../src/coordinator/group/streams-group-manager.js';

export const GROUP = 'app';

export interface StreamsConfigOverrides {
  'streams.session.timeout.ms'?: number;
  'streams.heartbeat.interval.ms'?: number;
  'streams.num.standby.replicas'?: number;
  'streams.initial.rebalance.delay.ms'?: number;
  'streams.assignment.interval.ms'?: number;
  'streams.rack.aware.assignment.tags'?: string[];
}

/** The group configs a test runs with: no initial delay and no batching unless it says so. */
export function streamsConfigs(over: StreamsConfigOverrides = {}): GroupConfigLookup {
  const resolved = {
    'streams.session.timeout.ms': 45000, 'streams.heartbeat.interval.ms': 5000, 'streams.num.standby.replicas': 0,
    'streams.initial.rebalance.delay.ms': 0, 'streams.assignment.interval.ms': 0, 'streams.task.offset.interval.ms': 60000,
    'streams.acceptable.recovery.lag': 10000n, 'streams.rack.aware.assignment.tags': [], 'consumer.session.timeout.ms': 45000, 'consumer.heartbeat.interval.ms': 5000, 'consumer.assignment.interval.ms': 0,
    ...over,
  } as unknown as ResolvedGroupConfig;
  return { resolve: () => resolved };
}

export interface StreamsHarness {
  clock: ManualClock;
  topics: MemoryTopicView;
  offsets: MemoryOffsetsTopic;
  coord: GroupCoordinator;
  hb(req: Partial<StreamsGroupHeartbeatRequest>): Promise<StreamsHeartbeatResult>;
  advance(ms: number): Promise<void>;
  restart(): Promise<StreamsHarness>;
}

export async function streamsHarness(
  configs = streamsConfigs(), topics = new MemoryTopicView().set('input', 'AQEBAQEBAQEBAQEBAQEBAQ', 4), offsets = new MemoryOffsetsTopic(), clock = new ManualClock(),
  config: GroupConfig = defaultGroupConfig({ numPartitions: 3 }),
): Promise<StreamsHarness> {
  const coord = new GroupCoordinator({ clock, logger: createLogger('silent'), config, topic: offsets, topics, groupConfigs: configs });
  await coord.ensureActive();
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      await coord.idle();
    }
  };
  return {
    clock, topics, offsets, coord,
    hb: (req) => coord.streamsGroupHeartbeat({ apiVersion: 1, clientId: 'client', clientHost: '/127.0.0.1' }, heartbeatReq(req)),
    async advance(ms) {
      await settle();
      clock.advance(ms);
      await settle();
    },
    async restart() {
      await coord.shutdown();
      return streamsHarness(configs, topics, offsets, clock, config);
    },
  };
}

/** The internal topics of wordCountTopology, created as the heartbeat handler would. */
export function createInternalTopics(h: StreamsHarness): void {
  h.topics.set(`${GROUP}-counts-repartition`, 'AgICAgICAgICAgICAgICAg', 4).set(`${GROUP}-counts-changelog`, 'AwMDAwMDAwMDAwMDAwMDAw', 4);
}

/** One subtopology reading `input`, writing to a repartition topic read by a second with a store. */
export function wordCountTopology(epoch = 0): Topology {
  return {
    epoch,
    subtopologies: [
      { subtopologyId: '0', sourceTopics: ['input'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [`${GROUP}-counts-repartition`], repartitionSourceTopics: [], copartitionGroups: [] },
      {
        subtopologyId: '1', sourceTopics: [], sourceTopicRegex: [], repartitionSinkTopics: [], copartitionGroups: [],
        stateChangelogTopics: [{ name: `${GROUP}-counts-changelog`, partitions: 0, replicationFactor: 0, topicConfigs: [{ key: 'cleanup.policy', value: 'compact' }] }],
        repartitionSourceTopics: [{ name: `${GROUP}-counts-repartition`, partitions: 0, replicationFactor: 0, topicConfigs: [] }],
      },
    ],
  };
}

export function heartbeatReq(over: Partial<StreamsGroupHeartbeatRequest> = {}): StreamsGroupHeartbeatRequest {
  return {
    groupId: GROUP, memberId: 'm', memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
    topology: null, activeTasks: null, standbyTasks: null, warmupTasks: null, processId: null, userEndpoint: null, clientTags: null,
    taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
    ...over,
  };
}

type Tasks = Map<string, Set<number>>;
const list = (t: Tasks) => [...t].map(([subtopologyId, s]) => ({ subtopologyId, partitions: [...s].sort((a, b) => a - b) }));
const toMap = (ids: { subtopologyId: string; partitions: number[] }[]): Tasks => new Map(ids.map((t) => [t.subtopologyId, new Set(t.partitions)]));

/** A Streams member (one stream thread) as the Java client behaves. */
export class SimStreamsMember {
  epoch = 0;
  active: Tasks = new Map();
  standby: Tasks = new Map();
  last: StreamsGroupHeartbeatResponse | null = null;

  constructor(readonly h: StreamsHarness, readonly memberId: string, readonly processId = memberId, readonly topology: Topology = wordCountTopology()) {}

  async join(): Promise<StreamsGroupHeartbeatResponse> {
    this.active = new Map();
    this.standby = new Map();
    return this.apply(await this.h.hb({ memberId: this.memberId, memberEpoch: 0, rebalanceTimeoutMs: 30000, topology: this.topology, processId: this.processId, activeTasks: [], standbyTasks: [], warmupTasks: [], clientTags: [] }));
  }

  async beat(): Promise<StreamsGroupHeartbeatResponse> {
    return this.apply(await this.h.hb({ memberId: this.memberId, memberEpoch: this.epoch, activeTasks: list(this.active), standbyTasks: list(this.standby), warmupTasks: [] }));
  }

  async leave(): Promise<StreamsGroupHeartbeatResponse> {
    const r = (await this.h.hb({ memberId: this.memberId, memberEpoch: -1 })).response;
    this.active = new Map();
    this.standby = new Map();
    return r;
  }

  private apply({ response }: StreamsHeartbeatResult): StreamsGroupHeartbeatResponse {
    this.last = response;
    if (response.errorCode !== 0) return response;
    this.epoch = response.memberEpoch;
    if (response.activeTasks !== null) this.active = toMap(response.activeTasks);
    if (response.standbyTasks !== null) this.standby = toMap(response.standbyTasks);
    return response;
  }

  activeTasks(): string[] {
    return [...this.active].flatMap(([s, ps]) => [...ps].map((p) => `${s}_${p}`));
  }
}

/** Heartbeats every member in turn until nothing changes (at most `rounds` rounds). */
export async function converge(members: SimStreamsMember[], rounds = 10, check?: () => void): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const before = JSON.stringify(members.map((m) => [m.epoch, m.activeTasks(), [...m.standby]]));
    for (const m of members) {
      await m.beat();
      check?.();
    }
    if (JSON.stringify(members.map((m) => [m.epoch, m.activeTasks(), [...m.standby]])) === before) return;
  }
}
