/**
 * The object store tiered storage writes to (Kafka's RemoteStorageManager sits on one of these):
 * the five operations an S3-compatible store offers and tiered storage needs, nothing more.
 *
 * Implementations: s3-object-store.ts (any S3-compatible endpoint, loaded only when tiered
 * storage is on) and memory-object-store.ts (unit tests, with fault injection).
 *
 * Errors are ObjectStoreError with a kind the callers act on: `not-found` (a key that is not
 * there), `exists` (a conditional put whose key already exists: another writer won), and
 * `unavailable` (anything else: the store is down, slow, refusing; retried with backoff).
 */

export type ObjectStoreErrorKind = 'not-found' | 'exists' | 'unavailable';

export class ObjectStoreError extends Error {
  constructor(readonly kind: ObjectStoreErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ObjectStoreError';
  }
}

export interface ObjectInfo {
  key: string;
  size: number;
  /** When the object was written (listings only; absent when the store does not say). */
  lastModifiedMs?: number;
}

/**
 * Where a put takes its bytes from: a buffer, or `size` bytes read a part at a time (a segment
 * file through the log's Fs; uploaded in parts when large, never whole in memory).
 */
export type ObjectBody = Buffer | ObjectSource;

export interface ObjectSource {
  size: number;
  read(position: number, length: number): Promise<Buffer>;
}

export interface ObjectStore {
  /**
   * Writes `key`. `ifNoneMatch`: only if the key does not exist yet (S3's `If-None-Match: *`),
   * else ObjectStoreError('exists').
   */
  put(key: string, body: ObjectBody, opts?: { ifNoneMatch?: boolean }): Promise<void>;
  /** The object's bytes, or bytes [start, end) of it; ObjectStoreError('not-found') when absent. */
  get(key: string, range?: { start: number; end: number }): Promise<Buffer>;
  /** The object's size, or null when absent. */
  head(key: string): Promise<ObjectInfo | null>;
  /** Every key starting with `prefix`, in key order. */
  list(prefix: string): Promise<ObjectInfo[]>;
  /** Deletes the keys (absent ones are not an error). */
  delete(keys: readonly string[]): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** An ObjectStoreError of kind `kind`? */
export function isStoreError(err: unknown, kind: ObjectStoreErrorKind): boolean {
  return err instanceof ObjectStoreError && err.kind === kind;
}
