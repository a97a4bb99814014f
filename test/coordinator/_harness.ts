/**
 * A group coordinator on a manual clock with in-memory offsets logs, and request builders.
 * Not a test file (no `.test.ts`).
 */
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { GroupCoordinator, MemoryOffsetsTopic } from '../../src/coordinator/group/group-coordinator.js';
import { defaultGroupConfig, type GroupConfig } from '../../src/coordinator/group/group-config.js';
import type { JoinGroupRequest } from '../../src/protocol/generated/messages/join-group-request.js';
import type { JoinGroupResponse } from '../../src/protocol/generated/messages/join-group-response.js';
import type { SyncGroupRequest } from '../../src/protocol/generated/messages/sync-group-request.js';
import { Writer } from '../../src/protocol/writer.js';
import { writeConsumerProtocolSubscription } from '../../src/protocol/generated/messages/consumer-protocol-subscription.js';

export const GROUP = 'g';

export interface Harness {
  clock: ManualClock;
  topic: MemoryOffsetsTopic;
  coord: GroupCoordinator;
  config: GroupConfig;
  /** Lets queued operations run (after starting requests or advancing the clock). */
  settle(): Promise<void>;
  /** Advances the clock and lets the timers' operations run. */
  advance(ms: number): Promise<void>;
  /** A new coordinator over the same logs (a restart): state = replay. */
  restart(): Promise<Harness>;
}

export async function harness(over: Partial<GroupConfig> = {}, topic = new MemoryOffsetsTopic(), clock = new ManualClock()): Promise<Harness> {
  const config = defaultGroupConfig({ numPartitions: 4, ...over });
  const coord = new GroupCoordinator({ clock, logger: createLogger('silent'), config, topic });
  await coord.ensureActive();
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      await coord.idle();
    }
  };
  const h: Harness = {
    clock, topic, coord, config, settle,
    async advance(ms) {
      await settle();
      clock.advance(ms);
      await settle();
    },
    async restart() {
      await coord.shutdown();
      return harness(over, topic, clock);
    },
  };
  return h;
}

/** Consumer-protocol subscription metadata (version 0) for these topics. */
export function subscription(topics: string[]): Buffer {
  const w = new Writer(64);
  w.int16(0);
  writeConsumerProtocolSubscription(w, 0, { topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  return w.toBuffer();
}

export function joinReq(over: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId: GROUP, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 30000, memberId: '', groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['t']) }], reason: null,
    ...over,
  };
}

export function syncReq(over: Partial<SyncGroupRequest> = {}): SyncGroupRequest {
  return { groupId: GROUP, generationId: 1, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [], ...over };
}

export const jc = (apiVersion = 5, clientId = 'client') => ({ apiVersion, clientId, clientHost: '/127.0.0.1' });

/** A member id from the MEMBER_ID_REQUIRED round trip (v4+). */
export async function memberId(h: Harness, clientId = 'client'): Promise<string> {
  const r = await h.coord.joinGroup(jc(5, clientId), joinReq());
  if (r.errorCode !== 79) throw new Error(`expected MEMBER_ID_REQUIRED, got ${r.errorCode}`);
  return r.memberId;
}

/** Starts a JoinGroup that may wait for the rebalance; lets it reach the coordinator. */
export async function startJoin(h: Harness, over: Partial<JoinGroupRequest>, version = 5): Promise<{ response: Promise<JoinGroupResponse> }> {
  const response = h.coord.joinGroup(jc(version), joinReq(over));
  await h.settle();
  return { response }; // wrapped: an async function cannot return a pending promise unresolved
}

/** Whether a promise has settled (without waiting). */
export async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => { done = true; }, () => { done = true; });
  await new Promise((r) => setImmediate(r));
  return done;
}

/** One member joins an empty group and becomes Stable at generation 1 with `assignment`. */
export async function stableSingle(h: Harness, assignment = Buffer.from('A')): Promise<string> {
  const id = await memberId(h);
  const join = (await startJoin(h, { memberId: id })).response;
  await h.advance(0); // initial rebalance delay 0
  const j = await join;
  if (j.errorCode !== 0 || j.generationId !== 1) throw new Error(`join failed: ${JSON.stringify(j)}`);
  const s = await h.coord.syncGroup(syncReq({ memberId: id, generationId: 1, assignments: [{ memberId: id, assignment }] }));
  if (s.errorCode !== 0) throw new Error(`sync failed: ${s.errorCode}`);
  return id;
}

export function state(h: Harness): Promise<string> {
  return h.coord.describeGroup(GROUP, false).then((d) => d.groupState);
}
