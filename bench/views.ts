/**
 * Fetch throughput on views that keep 100 %, 10 % and 1 % of the records, against a plain fetch
 * of the source, in one run (issue 16). An in-process broker (tmpdir storage); the source is
 * written straight into its partition log (1000-record batches, one `tag` header per record,
 * each codec asked for); a wire client then reads each topic from offset 0 to its end with
 * Fetch v12 (1 MiB per partition), counting the bytes returned and the source offsets covered.
 * Prints figures and ratios only.
 *
 *   npx tsx bench/views.ts [records=500000] [codec=none|lz4|zstd|gzip|snappy]
 */
import { startBroker } from '../src/testing/start-broker.js';
import { KafkaClient } from '../src/cli/client.js';
import { buildRecordBatch, type RecordInput } from '../src/protocol/records/record.js';
import type { CompressionName } from '../src/protocol/records/record-batch.js';

const N = Number(process.argv[2] ?? 500_000);
const CODEC = (process.argv[3] ?? 'none') as CompressionName;
const PER_BATCH = 1000;

function tagOf(i: number): string {
  // 1 % 'rare', a further 9 % 'some' (so tag in ('rare','some') keeps 10 %), the rest 'common'.
  const r = (i * 2654435761) % 100;
  return r === 0 ? 'rare' : r < 10 ? 'some' : 'common';
}

async function main(): Promise<void> {
  const b = await startBroker({ port: 0, storage: 'tmpdir', logLevel: 'warn' });
  try {
    await b.broker.createTopic({ name: 'src', numPartitions: 1, replicationFactor: 1, configs: {} });
    const views: [string, string][] = [['v100', "exists(tag)"], ['v10', "tag in ('rare', 'some')"], ['v1', "tag = 'rare'"]];
    for (const [name, filter] of views) {
      await b.broker.createTopic({ name, numPartitions: -1, replicationFactor: 1, configs: { 'samsa.view.source': 'src', 'samsa.view.filter': filter } });
    }
    const part = b.broker.replicaManager.getPartition('src', 0)!;
    const value = Buffer.alloc(100, 'x');
    const t0 = performance.now();
    for (let i = 0; i < N; i += PER_BATCH) {
      const records: RecordInput[] = [];
      for (let j = i; j < Math.min(N, i + PER_BATCH); j++) records.push({ key: Buffer.from(`key-${j}`), value, headers: [{ key: 'tag', value: Buffer.from(tagOf(j)) }] });
      await part.log.appendAsLeader(buildRecordBatch({ records, compression: CODEC }), part.leaderEpoch);
    }
    console.log(`source: ${N} records (${PER_BATCH} per batch, ${CODEC}), ${(part.log.sizeBytes / 1e6).toFixed(1)} MB, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
    const readAll = async (topic: string): Promise<{ ms: number; bytes: number; batches: number }> => {
      const topicId = b.broker.metadataCache.topic(topic)!.topicId;
      let offset = 0n;
      let bytes = 0;
      let batches = 0;
      const end = BigInt(part.log.highWatermark);
      const start = performance.now();
      while (offset < end) {
        const res = await c.request(1, {
          clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 0, maxBytes: 52428800, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
          topics: [{ topic, topicId, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }],
          forgottenTopicsData: [], rackId: '',
        });
        const pd = res.responses[0].partitions[0];
        if (pd.errorCode !== 0) throw new Error(`fetch ${topic}: error ${pd.errorCode}`);
        const buf = pd.records === null ? Buffer.alloc(0) : Array.isArray(pd.records) ? Buffer.concat(pd.records) : pd.records;
        let pos = 0;
        let next = offset;
        while (pos + 61 <= buf.length) {
          const size = 12 + buf.readInt32BE(pos + 8);
          next = buf.readBigInt64BE(pos) + BigInt(buf.readInt32BE(pos + 23)) + 1n;
          pos += size;
          batches++;
        }
        if (next <= offset) throw new Error(`fetch ${topic}: no progress at ${offset}`);
        bytes += buf.length;
        offset = next;
      }
      return { ms: performance.now() - start, bytes, batches };
    };
    // Warm the page cache and the JIT once.
    await readAll('src');
    await readAll('v10');
    const plain = await readAll('src');
    const line = (label: string, r: { ms: number; bytes: number; batches: number }) => {
      const recPerS = N / (r.ms / 1000);
      console.log(`${label.padEnd(26)} ${(recPerS / 1e6).toFixed(2).padStart(6)} M source records/s  ${((r.bytes / 1e6) / (r.ms / 1000)).toFixed(0).padStart(5)} MB/s returned  ${(r.bytes / 1e6).toFixed(1).padStart(6)} MB  ${String(r.batches).padStart(5)} batches  ${(plain.ms / r.ms).toFixed(2)}× plain speed`);
    };
    line('plain fetch of the source', plain);
    for (const [name, filter] of views) line(`view ${name} (${filter.length > 14 ? filter.slice(0, 14) + '…' : filter})`, await readAll(name));
    c.close();
  } finally {
    await b.stop();
  }
}

await main();
