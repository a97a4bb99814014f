/**
 * What the log cleaner does with transactions (Kafka's CleanedTransactionMetadata), per pass:
 *
 * - A transactional data batch is aborted when its producer has an aborted transaction (from the
 *   .txnindex entries) whose range [firstOffset, marker] holds the batch's base offset; a producer
 *   has one transaction at a time, so no other state is needed. Aborted batches are removed, and
 *   their records never enter the offset map. Committed transactional records are cleaned like
 *   any other record.
 * - A marker (COMMIT or ABORT control batch) is needed while batches of its transaction are still
 *   seen by the pass. Once a pass sees none, the marker gets a delete horizon
 *   (now + delete.retention.ms) and a pass after the horizon removes it, as Kafka does, so that a
 *   read_committed consumer that was reading the transaction still finds its end.
 * - The aborted transaction's .txnindex entry goes with its ABORT marker into the cleaned
 *   segment while the marker stays.
 */
import type { AbortedTxn } from './producer-state.js';
import { baseOffset as batchBaseOffset, isControl, isTransactional, producerId as batchProducerId } from '../protocol/records/record-batch.js';
import { RecordScan, recordsSection } from './cleaner-batch.js';

export const CONTROL_ABORT = 0;
export const CONTROL_COMMIT = 1;

export class CleanerTxnTracker {
  private readonly aborted = new Map<number, AbortedTxn[]>();
  /** Producers whose current transaction had data batches seen by this pass. */
  private readonly seenData = new Set<number>();
  /** Aborted transactions by the offset of their marker. */
  private readonly byMarker = new Map<number, AbortedTxn>();

  constructor(abortedTxns: readonly AbortedTxn[]) {
    for (const t of abortedTxns) {
      const list = this.aborted.get(t.producerId);
      if (list) list.push(t);
      else this.aborted.set(t.producerId, [t]);
      this.byMarker.set(t.lastOffset, t);
    }
  }

  /** A transactional data batch of an aborted transaction (its records are not live). */
  isAborted(buf: Buffer, pos: number): boolean {
    if (!isTransactional(buf, pos) || isControl(buf, pos)) return false;
    const list = this.aborted.get(batchProducerId(buf, pos));
    if (!list) return false;
    const base = batchBaseOffset(buf, pos);
    for (const t of list) if (t.firstOffset <= base && base <= t.lastOffset) return true;
    return false;
  }

  /** Records a transactional data batch seen by the pass (kept or not). */
  onDataBatch(buf: Buffer, pos: number): void {
    if (isTransactional(buf, pos) && !isControl(buf, pos)) this.seenData.add(batchProducerId(buf, pos));
  }

  /**
   * A marker: true when the pass saw none of its transaction's batches (it may go once its
   * delete horizon passes). Ends the producer's transaction for the tracker.
   */
  onMarker(buf: Buffer, pos: number): boolean {
    const pid = batchProducerId(buf, pos);
    const seen = this.seenData.delete(pid);
    return !seen;
  }

  /** The aborted-transaction entry whose marker is at `offset`, if any. */
  abortedTxnOfMarker(offset: number): AbortedTxn | undefined {
    return this.byMarker.get(offset);
  }
}

const markerScan = new RecordScan();

/** The control type of a marker batch (ABORT 0, COMMIT 1; -1 when unreadable). */
export function controlType(buf: Buffer, pos: number): number {
  try {
    const section = recordsSection(buf, pos);
    markerScan.scan(section, 1);
    if (markerScan.keyLength[0] < 4) return -1;
    return section.readInt16BE(markerScan.keyStart[0] + 2);
  } catch {
    return -1;
  }
}
