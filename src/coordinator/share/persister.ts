/**
 * Where share-partition state is kept (Kafka's Persister): the share-partition leader reads a
 * partition's state when it first serves it and writes each change before it answers the
 * acknowledgement or the acquisition that caused it. The durable implementation is the share
 * coordinator on `__share_group_state` (ShareSnapshot / ShareUpdate records); `MemoryPersister`
 * serves unit tests and brokers without durable state.
 *
 * Delivery states as Kafka persists them: 0 Available, 2 Acknowledged, 4 Archived (an acquired
 * record is written as Available: after a restart it can be delivered again).
 */

export const DeliveryState = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVED: 4 } as const;

export interface PersistedStateBatch {
  firstOffset: number;
  lastOffset: number;
  deliveryState: number;
  deliveryCount: number;
}

export interface PersistedShareState {
  /** Bumped when the state is reset (AlterShareGroupOffsets / re-initialisation). */
  stateEpoch: number;
  leaderEpoch: number;
  /** The share-partition start offset; -1 when never initialised (use share.auto.offset.reset). */
  startOffset: number;
  /** In-flight records at or above startOffset whose state differs from "available, never delivered". */
  stateBatches: PersistedStateBatch[];
}

export interface ShareStateKey {
  groupId: string;
  topicId: string;
  partition: number;
}

export interface SharePersister {
  /**
   * The partition's state, or null when none was ever written. `leaderEpoch`: the share-partition
   * leader's epoch (the data partition's leader epoch), recorded by the share coordinator so that
   * writes of older leaders are fenced (FENCED_LEADER_EPOCH), as Kafka's ReadShareGroupState does.
   */
  read(key: ShareStateKey, leaderEpoch?: number): Promise<PersistedShareState | null>;
  /**
   * Applies a change: the new start offset and the batches whose state changed (they replace what
   * was known for their offsets; batches below startOffset are dropped). `stateEpoch` null keeps it.
   */
  write(key: ShareStateKey, change: { stateEpoch?: number; leaderEpoch: number; startOffset: number; stateBatches: PersistedStateBatch[] }): Promise<void>;
  /** Forgets the partitions' state (DeleteShareGroupOffsets, DeleteGroups). */
  delete(keys: ShareStateKey[]): Promise<void>;
}

/** Merges `change` batches into `batches` (both sorted, non-overlapping); drops offsets below `startOffset`. */
export function mergeStateBatches(batches: readonly PersistedStateBatch[], change: readonly PersistedStateBatch[], startOffset: number): PersistedStateBatch[] {
  const out: PersistedStateBatch[] = [];
  const push = (b: PersistedStateBatch) => {
    if (b.lastOffset < startOffset || b.lastOffset < b.firstOffset) return;
    const first = Math.max(b.firstOffset, startOffset);
    const prev = out[out.length - 1];
    if (prev && prev.lastOffset + 1 === first && prev.deliveryState === b.deliveryState && prev.deliveryCount === b.deliveryCount) prev.lastOffset = b.lastOffset;
    else out.push({ firstOffset: first, lastOffset: b.lastOffset, deliveryState: b.deliveryState, deliveryCount: b.deliveryCount });
  };
  let j = 0;
  const sortedChange = [...change].sort((a, b) => a.firstOffset - b.firstOffset);
  for (const b of batches) {
    let from = b.firstOffset;
    while (j < sortedChange.length && sortedChange[j].firstOffset <= b.lastOffset) {
      const c = sortedChange[j];
      if (c.firstOffset > from) push({ ...b, firstOffset: from, lastOffset: c.firstOffset - 1 });
      if (c.lastOffset > b.lastOffset) { from = b.lastOffset + 1; break; }
      push(c);
      from = Math.max(from, c.lastOffset + 1);
      j++;
    }
    if (from <= b.lastOffset) push({ ...b, firstOffset: from });
  }
  for (; j < sortedChange.length; j++) {
    const c = sortedChange[j];
    const last = out[out.length - 1];
    if (last && c.firstOffset <= last.lastOffset) push({ ...c, firstOffset: last.lastOffset + 1 });
    else push(c);
  }
  return out;
}

/** State kept in memory (unit tests; `storage: 'memory'` brokers without a share coordinator). */
export class MemoryPersister implements SharePersister {
  readonly states = new Map<string, PersistedShareState>();
  writes = 0;

  private static id(k: ShareStateKey): string {
    return `${k.groupId}\u0000${k.topicId}\u0000${k.partition}`;
  }

  async read(key: ShareStateKey): Promise<PersistedShareState | null> {
    const s = this.states.get(MemoryPersister.id(key));
    return s ? { ...s, stateBatches: s.stateBatches.map((b) => ({ ...b })) } : null;
  }

  async write(key: ShareStateKey, change: { stateEpoch?: number; leaderEpoch: number; startOffset: number; stateBatches: PersistedStateBatch[] }): Promise<void> {
    this.writes++;
    const id = MemoryPersister.id(key);
    const prev = this.states.get(id);
    const stateEpoch = change.stateEpoch ?? prev?.stateEpoch ?? 0;
    const base = prev && stateEpoch === prev.stateEpoch ? prev.stateBatches : [];
    this.states.set(id, { stateEpoch, leaderEpoch: change.leaderEpoch, startOffset: change.startOffset, stateBatches: mergeStateBatches(base, change.stateBatches, change.startOffset) });
  }

  async delete(keys: ShareStateKey[]): Promise<void> {
    for (const k of keys) this.states.delete(MemoryPersister.id(k));
  }
}
