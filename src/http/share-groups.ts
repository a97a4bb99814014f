/**
 * Share groups (KIP-932) as the console shows them, read in-process with the broker's own rights
 * (no ACL check, like the consumer-group pages): the group coordinator's ShareGroupDescribe and
 * share-partitions, the share-partition manager's start offset and lag (what
 * DescribeShareGroupOffsets answers), and the persisted state through the broker's share persister
 * (ReadShareGroupState, on whichever broker is the share coordinator). The figures are assembled by
 * src/coordinator/share/share-group-report.ts, as `samsa groups describe` assembles them.
 */
import type { HttpBroker } from './http-broker.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { shareGroupReports, type ShareGroupReader, type ShareGroupReport, type ShareOffsetsTopic } from '../coordinator/share/share-group-report.js';

function inProcessReader(broker: HttpBroker): ShareGroupReader {
  const gc = broker.groupCoordinator;
  return {
    describe: (groupIds) => Promise.all(groupIds.map((id) => gc.shareGroupDescribe(id, null))),
    async offsets(groupId) {
      const assigned = await gc.sharePartitionsOf(groupId);
      if (assigned === null) return null;
      const mgr = broker.sharePartitions;
      const out: ShareOffsetsTopic[] = [];
      for (const t of assigned) {
        const partitions = await Promise.all(t.partitions.map(async (p) => {
          const o = await mgr.offsetsOf({ groupId, topicId: t.topicId, partition: p });
          return { partitionIndex: p, startOffset: BigInt(o.startOffset), lag: BigInt(o.lag), errorCode: ErrorCode.NONE };
        }));
        out.push({ topicName: t.topicName, topicId: t.topicId, partitions });
      }
      return out;
    },
    async stateBatches(groupId, topic, partition) {
      const s = await broker.sharePersister.read({ groupId, topicId: topic.topicId, partition });
      return s === null ? null : s.stateBatches;
    },
  };
}

/** Every share group this broker coordinates, without the state reads (no in-flight / archived figures). */
export async function listShareGroups(broker: HttpBroker): Promise<ShareGroupReport[]> {
  const gc = broker.groupCoordinator;
  if (!gc || !gc.isActive) return [];
  const ids = (await gc.listGroups([], ['share'])).map((g) => g.groupId).sort();
  return shareGroupReports(inProcessReader(broker), ids, { counts: false });
}

/** One share group with its members, assignments and share-partitions; null when there is no such share group here. */
export async function describeShareGroup(broker: HttpBroker, groupId: string): Promise<ShareGroupReport | null> {
  const gc = broker.groupCoordinator;
  if (!gc || !gc.isActive) return null;
  return (await shareGroupReports(inProcessReader(broker), [groupId]))[0] ?? null;
}
