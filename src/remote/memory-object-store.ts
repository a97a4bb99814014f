/**
 * An ObjectStore in memory (unit tests and `startBroker({ remoteStore })`): what S3 does for the
 * five operations, plus switches a test uses to make it fail or slow.
 */
import { ObjectStoreError, type ObjectBody, type ObjectInfo, type ObjectStore } from './object-store.js';

export class MemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, Buffer>();
  private readonly written = new Map<string, number>();
  /** While true every call fails as an unreachable store does. */
  down = false;
  /** Added to every call (ms). */
  delayMs = 0;
  /** Calls made, by operation (tests). */
  readonly calls = { put: 0, get: 0, head: 0, list: 0, delete: 0 };

  private async gate(): Promise<void> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.down) throw new ObjectStoreError('unavailable', 'object store unreachable (test switch)');
  }

  async put(key: string, body: ObjectBody, opts?: { ifNoneMatch?: boolean }): Promise<void> {
    this.calls.put++;
    await this.gate();
    const bytes = Buffer.isBuffer(body) ? Buffer.from(body) : Buffer.from(await body.read(0, body.size));
    if (opts?.ifNoneMatch && this.objects.has(key)) throw new ObjectStoreError('exists', `${key} exists`);
    this.objects.set(key, bytes);
    this.written.set(key, Date.now());
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Buffer> {
    this.calls.get++;
    await this.gate();
    const obj = this.objects.get(key);
    if (!obj) throw new ObjectStoreError('not-found', `${key} not found`);
    return range ? Buffer.from(obj.subarray(range.start, range.end)) : Buffer.from(obj);
  }

  async head(key: string): Promise<ObjectInfo | null> {
    this.calls.head++;
    await this.gate();
    const obj = this.objects.get(key);
    return obj ? { key, size: obj.length } : null;
  }

  async list(prefix: string): Promise<ObjectInfo[]> {
    this.calls.list++;
    await this.gate();
    const out: ObjectInfo[] = [];
    for (const [key, obj] of this.objects) if (key.startsWith(prefix)) out.push({ key, size: obj.length, lastModifiedMs: this.written.get(key) });
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(keys: readonly string[]): Promise<void> {
    this.calls.delete++;
    await this.gate();
    for (const k of keys) {
      this.objects.delete(k);
      this.written.delete(k);
    }
  }

  async close(): Promise<void> {}

  /** Bytes stored in all (tests). */
  get sizeBytes(): number {
    let n = 0;
    for (const obj of this.objects.values()) n += obj.length;
    return n;
  }
}
