/**
 * KIP-848 consumer groups on a manual clock: a coordinator with in-memory offsets logs and
 * topics, and a simulated consumer that reconciles the way the clients do (it drops revoked
 * partitions at once, takes new ones, and reports what it owns in the next heartbeat).
 * Not a test file (no `.test.ts`).
 */
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { GroupCoordinator, MemoryOffsetsTopic } from '../../src/coordinator/group/group-coordinator.js';
import { defaultConsumerGroupConfig, defaultGroupConfig, type ConsumerGroupConfig } from '../../src/coordinator/group/group-config.js';
import { MemoryTopicView } from '../../src/coordinator/group/topic-view.js';
import type { GroupConfigLookup } from '../../src/coordinator/group/group-configs.js';
import type { ConsumerGroupHeartbeatRequest } from '../../src/protocol/generated/messages/consumer-group-heartbeat-request.js';
import type { ConsumerGroupHeartbeatResponse } from '../../src/protocol/generated/messages/consumer-group-heartbeat-response.js';

export const GROUP = 'cg';

export interface ConsumerHarness {
  clock: ManualClock;
  topics: MemoryTopicView;
  offsets: MemoryOffsetsTopic;
  coord: GroupCoordinator;
  hb(req: Partial<ConsumerGroupHeartbeatRequest>, apiVersion?: number): Promise<ConsumerGroupHeartbeatResponse>;
  advance(ms: number): Promise<void>;
  restart(): Promise<ConsumerHarness>;
}

export async function consumerHarness(
  over: Partial<ConsumerGroupConfig> = {}, topics = new MemoryTopicView().set('t', 'AQEBAQEBAQEBAQEBAQEBAQ', 6), offsets = new MemoryOffsetsTopic(), clock = new ManualClock(),
  groupConfigs?: GroupConfigLookup,
): Promise<ConsumerHarness> {
  // Assignment batching off unless a test sets it (as Kafka's own tests run most scenarios).
  const config = defaultGroupConfig({ numPartitions: 3, consumer: defaultConsumerGroupConfig({ assignmentIntervalMs: 0, ...over }) });
  const coord = new GroupCoordinator({ clock, logger: createLogger('silent'), config, topic: offsets, topics, groupConfigs });
  await coord.ensureActive();
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      await coord.idle();
    }
  };
  return {
    clock, topics, offsets, coord,
    hb: (req, apiVersion = 1) => coord.consumerGroupHeartbeat({ apiVersion, clientId: 'client', clientHost: '/127.0.0.1' }, heartbeatReq(req)),
    async advance(ms) {
      await settle();
      clock.advance(ms);
      await settle();
    },
    async restart() {
      await coord.shutdown();
      return consumerHarness(over, topics, offsets, clock, groupConfigs);
    },
  };
}

export function heartbeatReq(over: Partial<ConsumerGroupHeartbeatRequest> = {}): ConsumerGroupHeartbeatRequest {
  return {
    groupId: GROUP, memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
    subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null,
    ...over,
  };
}

/** A consumer as the clients behave: reconciles each assignment it receives at once. */
export class SimConsumer {
  epoch = 0;
  owned = new Map<string, Set<number>>();
  lastError = 0;

  constructor(readonly h: ConsumerHarness, readonly memberId: string, readonly opts: { topics?: string[]; regex?: string; instanceId?: string; assignor?: string; rebalanceTimeoutMs?: number } = {}) {}

  private ownedList(): { topicId: string; partitions: number[] }[] {
    return [...this.owned].map(([topicId, s]) => ({ topicId, partitions: [...s].sort((a, b) => a - b) }));
  }

  async join(): Promise<ConsumerGroupHeartbeatResponse> {
    this.owned = new Map();
    this.epoch = 0;
    return this.beat({
      rebalanceTimeoutMs: this.opts.rebalanceTimeoutMs ?? 300000,
      subscribedTopicNames: this.opts.regex === undefined ? (this.opts.topics ?? ['t']) : null,
      subscribedTopicRegex: this.opts.regex ?? null,
      serverAssignor: this.opts.assignor ?? null,
      topicPartitions: [],
    });
  }

  async beat(extra: Partial<ConsumerGroupHeartbeatRequest> = {}): Promise<ConsumerGroupHeartbeatResponse> {
    const r = await this.h.hb({
      memberId: this.memberId, memberEpoch: this.epoch, instanceId: this.opts.instanceId ?? null,
      topicPartitions: this.ownedList(), ...extra,
    });
    this.lastError = r.errorCode;
    if (r.errorCode !== 0) return r;
    this.epoch = r.memberEpoch;
    if (r.assignment) this.owned = new Map(r.assignment.topicPartitions.map((tp) => [tp.topicId, new Set(tp.partitions)]));
    return r;
  }

  async leave(epoch = -1): Promise<ConsumerGroupHeartbeatResponse> {
    const r = await this.h.hb({ memberId: this.memberId, memberEpoch: epoch, instanceId: this.opts.instanceId ?? null });
    this.owned = new Map();
    return r;
  }

  partitions(topicId = 'AQEBAQEBAQEBAQEBAQEBAQ'): number[] {
    return [...(this.owned.get(topicId) ?? [])].sort((a, b) => a - b);
  }
}

/** Heartbeats every consumer in turn until nothing changes (at most `rounds` rounds). */
export async function converge(consumers: SimConsumer[], rounds = 10, onRound?: () => void): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const before = JSON.stringify(consumers.map((c) => [c.epoch, c.partitions()]));
    for (const c of consumers) {
      await c.beat();
      onRound?.();
    }
    if (JSON.stringify(consumers.map((c) => [c.epoch, c.partitions()])) === before) return;
  }
}
