/** Raw Fetch with the generated codecs (read_committed checks without a consumer group). */
import { WireClient } from '../broker/handlers/_admin-wire.js';
import { decodeRecordBatches } from '../../src/protocol/records/record.js';
import { defaultFetchRequest, defaultFetchPartition } from '../../src/protocol/generated/messages/fetch-request.js';

export { WireClient };

export async function fetchValues(c: WireClient, topic: string, isolationLevel = 0, partition = 0, version = 11) {
  const req = defaultFetchRequest();
  req.maxWaitMs = 0;
  req.minBytes = 0;
  req.maxBytes = 1 << 20;
  req.isolationLevel = isolationLevel;
  req.sessionEpoch = -1;
  req.topics = [{ topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ ...defaultFetchPartition(), partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
  const r = await c.send(1, version, req);
  const p = r.responses[0].partitions[0];
  const batches = (Array.isArray(p.records) ? p.records : p.records ? [p.records] : []).flatMap((b: Buffer) => decodeRecordBatches(b));
  return { partition: p, batches, values: batches.filter((b) => !b.isControl).flatMap((b) => b.records.map((r) => r.value!.toString())) };
}

/** What a read_committed client would deliver: data batches minus aborted transactions, minus markers. */
export function committedValues(r: Awaited<ReturnType<typeof fetchValues>>): string[] {
  const aborted = [...(r.partition.abortedTransactions ?? [])].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  const open = new Set<bigint>();
  const out: string[] = [];
  for (const bt of r.batches) {
    for (const a of aborted) if (a.firstOffset <= bt.baseOffset && !open.has(a.producerId) && bt.producerId === a.producerId) open.add(a.producerId);
    if (bt.isControl) {
      if (open.has(bt.producerId) && bt.records[0].key!.readInt16BE(2) === 0) {
        open.delete(bt.producerId);
        const i = aborted.findIndex((a) => a.producerId === bt.producerId);
        if (i >= 0) aborted.splice(i, 1);
      }
      continue;
    }
    if (bt.isTransactional && open.has(bt.producerId)) continue;
    out.push(...bt.records.map((x) => x.value!.toString()));
  }
  return out;
}
