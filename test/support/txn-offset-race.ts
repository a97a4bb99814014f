/**
 * Commit-while-fetching rounds (issue 23, defect 1): a transactional producer commits a group's
 * offset (AddOffsetsToTxn, TxnOffsetCommit, EndTxn commit) while another connection keeps asking
 * OffsetFetch with require_stable. Once the TxnOffsetCommit has been answered, every answer must
 * be UNSTABLE_OFFSET_COMMIT or the new offset: offset -1 with NONE is the stale answer that makes
 * a consumer restart from the log start and process everything again.
 *
 * A third connection keeps committing partition 1 of the same group (plain OffsetCommit), so the
 * group's shard is often busy appending: an OffsetFetch and the marker then queue up behind one
 * another there, which is when a check made outside the shard's queue goes wrong. `topic` needs
 * two partitions.
 *
 * Each round uses a fresh group, so "no offset" is the only stale value there is. Requests go to
 * the coordinators FindCoordinator names (they differ on a cluster). Bounded: `rounds` rounds, each
 * with a deadline.
 */
import { KafkaClient } from '../../src/cli/client.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import type { ApiTypes } from '../../src/protocol/generated/api-table.js';
import { apiCodecs } from '../../src/protocol/generated/api-table.js';
import { fill } from '../../compat-tests/probes/fill.js';

export interface RaceResult {
  rounds: number;
  /** Answers offset -1 with NONE after the TxnOffsetCommit was answered. */
  stale: number;
  unstable: number;
  answers: number;
}

const RETRIABLE: ReadonlySet<number> = new Set([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR,
  ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.REQUEST_TIMED_OUT,
]);

export async function commitWhileFetching(bootstrap: string, topic: string, rounds: number, runId: string): Promise<RaceResult> {
  const clients = new Map<string, KafkaClient>();
  /** One connection per address and role: a broker answers one request of a connection at a time. */
  const connect = async (addr: string, role: string) => {
    let c = clients.get(`${role} ${addr}`);
    if (!c) clients.set(`${role} ${addr}`, (c = await KafkaClient.connect({ bootstrap: addr, requestTimeoutMs: 15_000 })));
    return c;
  };
  const send = <K extends keyof ApiTypes>(c: KafkaClient, apiKey: K, version: number, body: Record<string, unknown>): Promise<any> =>
    c.send(apiKey, version, fill(`${apiCodecs[apiKey].name}Request`, version, body) as never);
  /** Retries a call while its error code is a retriable one; returns the last answer's code and body. */
  const retry = async <T>(what: string, call: () => Promise<T>, code: (r: T) => number): Promise<T> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await call();
      const c = code(r);
      if (c === ErrorCode.NONE) return r;
      if (!RETRIABLE.has(c) || Date.now() > deadline) throw new Error(`${what}: error ${c}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  const boot = await connect(bootstrap.split(',')[0], 'bootstrap');
  const coordinator = async (key: string, keyType: number, role: string) => {
    const r = await retry(`FindCoordinator ${key}`, () => send(boot, 10, 4, { keyType, coordinatorKeys: [key] }), (x: any) => x.coordinators[0].errorCode);
    return connect(`${r.coordinators[0].host}:${r.coordinators[0].port}`, role);
  };

  const txnId = `race-${runId}`;
  const result: RaceResult = { rounds, stale: 0, unstable: 0, answers: 0 };
  try {
    const txn = await coordinator(txnId, 1, 'producer');
    const init = await retry('InitProducerId', () => send(txn, 22, 4, { transactionalId: txnId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 }), (x: any) => x.errorCode);
    const pid = { producerId: init.producerId, producerEpoch: init.producerEpoch };
    for (let k = 0; k < rounds; k++) {
      const groupId = `race-${runId}-${k}`;
      const offset = BigInt(k + 1);
      const group = await coordinator(groupId, 0, 'producer');
      const fetchers = [await coordinator(groupId, 0, 'fetcher-1'), await coordinator(groupId, 0, 'fetcher-2')];
      const committer = await coordinator(groupId, 0, 'committer');
      await retry('AddOffsetsToTxn', () => send(txn, 25, 3, { transactionalId: txnId, ...pid, groupId }), (x: any) => x.errorCode);
      await retry('TxnOffsetCommit', () => send(group, 28, 3, {
        transactionalId: txnId, groupId, ...pid, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
        topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      }), (x: any) => x.topics[0].partitions[0].errorCode);
      // From here on, the only right answers are UNSTABLE_OFFSET_COMMIT and `offset`.
      let seen = false;
      const deadline = Date.now() + 20_000;
      const fetcher = async (conn: KafkaClient) => {
        while (!seen) {
          if (Date.now() > deadline) throw new Error(`round ${k}: offset ${offset} not visible after 20 s`);
          const r = await send(conn, 9, 8, { groups: [{ groupId, topics: [{ name: topic, partitionIndexes: [0] }] }], requireStable: true });
          const p = r.groups[0].topics[0]?.partitions[0];
          result.answers++;
          if (r.groups[0].errorCode !== ErrorCode.NONE || !p) continue;
          if (p.errorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT) result.unstable++;
          else if (p.errorCode === ErrorCode.NONE && p.committedOffset === -1n) result.stale++;
          else if (p.errorCode === ErrorCode.NONE && p.committedOffset === offset) seen = true;
          else if (!RETRIABLE.has(p.errorCode)) throw new Error(`round ${k}: OffsetFetch answered ${p.errorCode} offset ${p.committedOffset}`);
        }
      };
      const noise = async () => {
        for (let i = 0n; !seen && Date.now() < deadline; i++) {
          await send(committer, 8, 8, { groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: topic, partitions: [{ partitionIndex: 1, committedOffset: i, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
        }
      };
      // Two fetchers on connections of their own keep asking around the marker.
      const fetching = [...fetchers.map((conn) => fetcher(conn)), noise()];
      const end = retry('EndTxn', () => send(txn, 26, 3, { transactionalId: txnId, ...pid, committed: true }), (x: any) => x.errorCode);
      await Promise.all([...fetching, end]);
    }
  } finally {
    for (const c of clients.values()) c.close();
  }
  return result;
}
