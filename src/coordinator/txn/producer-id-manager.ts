/**
 * Producer ids that never repeat, across restarts (Kafka's ProducerIdManager with blocks from the
 * controller). Ids are handed out from blocks of BLOCK_SIZE; before the first id of a block is
 * used, the end of the block is persisted (atomic file replace + fsync), so after a crash the next
 * block starts past every id that may have been given out. File: `<log.dir>/samsa-producer-id-block`,
 * JSON shaped like Kafka's old ZooKeeper producer-id block: {"version":1,"broker":N,"block_start":S,"block_end":E}.
 * In an etcd cluster the blocks come from the metadata store instead (ProducerIdsRecord).
 */
import * as path from 'node:path';
import type { Fs } from '../../storage/fs.js';

export const PRODUCER_ID_BLOCK_FILE = 'samsa-producer-id-block';
export const BLOCK_SIZE = 1000;

export class ProducerIdManager {
  private next = 0;
  private end = 0;
  private pending: Promise<void> | null = null;

  /**
   * `allocate`: blocks come from the cluster's metadata store instead of the file (etcd: every
   * broker of the cluster draws from one counter, so no two brokers hand out the same id).
   */
  constructor(
    private readonly fs: Fs,
    private readonly dir: string,
    private readonly brokerId = 0,
    private readonly allocate?: () => Promise<{ firstProducerId: bigint; size: number }>,
  ) {}

  private get file(): string {
    return path.join(this.dir, PRODUCER_ID_BLOCK_FILE);
  }

  /** The next unused producer id. */
  async generate(): Promise<number> {
    while (this.next >= this.end) {
      this.pending ??= this.allocateBlock().finally(() => { this.pending = null; });
      await this.pending;
    }
    return this.next++;
  }

  private async allocateBlock(): Promise<void> {
    if (this.allocate) {
      const block = await this.allocate();
      this.next = Number(block.firstProducerId);
      this.end = this.next + block.size;
      return;
    }
    await this.fs.mkdir(this.dir);
    let start = 0;
    if (await this.fs.exists(this.file)) {
      const stored = JSON.parse((await this.fs.readFile(this.file)).toString('utf8')) as { block_end?: number };
      if (typeof stored.block_end === 'number' && stored.block_end >= 0) start = stored.block_end + 1;
    }
    start = Math.max(start, this.end);
    const end = start + BLOCK_SIZE - 1;
    await this.fs.writeFileAtomic(this.file, Buffer.from(JSON.stringify({ version: 1, broker: this.brokerId, block_start: start, block_end: end }) + '\n'));
    this.next = start;
    this.end = end + 1;
  }
}
