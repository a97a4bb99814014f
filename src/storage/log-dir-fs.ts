/**
 * The file system as one log dir's logs see it, reporting that dir's I/O failures (the Samsa side
 * of Kafka's LogDirFailureChannel: Kafka's logs catch an IOException of any read, write, flush
 * or roll and hand the dir to the channel, which takes the whole dir offline).
 *
 * Every call goes to the underlying Fs; an error that means the disk or the directory failed
 * (`isLogDirFailure`: EIO, ENOSPC, EROFS, ENOTDIR, EACCES, ...) is reported once through
 * `onFailure`, then thrown as it was. ENOENT, EEXIST and ENOTEMPTY are answers, not failures
 * (a missing checkpoint file, a retried rename). Once `fail()` ran (this report or the LogManager
 * taking the dir offline) every call is refused with KAFKA_STORAGE_ERROR: nothing more is
 * written to or read from an offline dir, except that open files may still be closed.
 *
 * Hot path: append and writeAt stay synchronous (one try/catch); read adds one promise reaction.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { AtomicFile, FileHandle, FileStat, Fs } from './fs.js';

const FAILURE_CODES = new Set(['EIO', 'ENOSPC', 'EDQUOT', 'EROFS', 'ENOTDIR', 'EACCES', 'EPERM', 'ENXIO', 'ENODEV', 'ESTALE', 'EFAULT']);

/** Whether `err` says the storage under a log dir failed (rather than answering a question). */
export function isLogDirFailure(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && FAILURE_CODES.has(code);
}

/** Whether a dir is offline, shared by the LogDirFs views of one dir. */
interface DirHealth {
  error: KafkaApiError | null;
}

export class LogDirFs implements Fs {
  readonly openDetached?: (filePath: string) => Promise<FileHandle>;
  readonly openDetachedWithContents?: (filePath: string) => Promise<{ file: FileHandle; contents: Buffer }>;
  readonly writeFilesAtomic?: (files: readonly AtomicFile[]) => Promise<void>;
  /** Rejection handler of every call (one closure per log dir, none per call). */
  readonly failed = (err: unknown): never => {
    this.check(err);
    throw err;
  };

  constructor(private readonly base: Fs, readonly logDir: string, private readonly onFailure: (err: Error) => void, private readonly health: DirHealth = { error: null }) {
    const b = base;
    if (b.openDetached) this.openDetached = (p) => this.guard(() => b.openDetached!(p)).then((h) => new LogDirFileHandle(this, h));
    if (b.openDetachedWithContents) {
      this.openDetachedWithContents = (p) => this.guard(() => b.openDetachedWithContents!(p)).then((r) => ({ file: new LogDirFileHandle(this, r.file), contents: r.contents }));
    }
    if (b.writeFilesAtomic) this.writeFilesAtomic = (files) => this.guard(() => b.writeFilesAtomic!(files));
  }

  /** The same dir over another Fs (the start-up one, startup-fs.ts): one offline state for both. */
  over(base: Fs): LogDirFs {
    return new LogDirFs(base, this.logDir, this.onFailure, this.health);
  }

  private get offlineError(): KafkaApiError | null {
    return this.health.error;
  }

  /** The error every call is refused with once offline. */
  get offlineCause(): KafkaApiError | null {
    return this.offlineError;
  }

  /** The dir is offline: every call from now on is refused. */
  get isOffline(): boolean {
    return this.offlineError !== null;
  }

  /** Takes the dir offline (idempotent); `err` is the cause. */
  fail(err: Error): KafkaApiError {
    return (this.health.error ??= new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `Log directory ${this.logDir} is offline: ${err.message}`, { cause: err }));
  }

  /** Reports `err` when it is a failure of the dir. */
  check(err: unknown): void {
    if (this.offlineError || !isLogDirFailure(err)) return;
    this.fail(err as Error);
    this.onFailure(err as Error);
  }

  /** Throws when offline (the synchronous calls of the file handles). */
  live(): void {
    if (this.offlineError) throw this.refusal();
  }

  /** A fresh error per refused call (its stack names the caller), caused by the dir's failure. */
  refusal(): KafkaApiError {
    const e = this.offlineError!;
    return new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, e.message, { cause: e.cause });
  }

  private guard<T>(op: () => Promise<T>): Promise<T> {
    if (this.offlineError) return Promise.reject(this.refusal());
    return op().catch(this.failed);
  }

  open(filePath: string): Promise<FileHandle> {
    return this.guard(() => this.base.open(filePath)).then((h) => new LogDirFileHandle(this, h));
  }

  readFile(filePath: string): Promise<Buffer> {
    return this.guard(() => this.base.readFile(filePath));
  }

  writeFileAtomic(filePath: string, data: Uint8Array): Promise<void> {
    return this.guard(() => this.base.writeFileAtomic(filePath, data));
  }

  rename(from: string, to: string): Promise<void> {
    return this.guard(() => this.base.rename(from, to));
  }

  unlink(filePath: string): Promise<void> {
    return this.guard(() => this.base.unlink(filePath));
  }

  readdir(dirPath: string): Promise<string[]> {
    return this.guard(() => this.base.readdir(dirPath));
  }

  mkdir(dirPath: string): Promise<void> {
    return this.guard(() => this.base.mkdir(dirPath));
  }

  stat(filePath: string): Promise<FileStat> {
    return this.guard(() => this.base.stat(filePath));
  }

  exists(filePath: string): Promise<boolean> {
    return this.guard(() => this.base.exists(filePath));
  }

  rmdir(dirPath: string): Promise<void> {
    return this.guard(() => this.base.rmdir(dirPath));
  }

  syncDir(dirPath: string): Promise<void> {
    return this.guard(() => this.base.syncDir(dirPath));
  }
}

/** A file of a log dir: its failures are the dir's. */
class LogDirFileHandle implements FileHandle {
  constructor(private readonly dir: LogDirFs, private readonly inner: FileHandle) {}

  get path(): string {
    return this.inner.path;
  }

  size(): number {
    return this.inner.size();
  }

  append(data: Uint8Array): void {
    this.dir.live();
    try {
      this.inner.append(data);
    } catch (err) {
      this.dir.check(err);
      throw err;
    }
  }

  writeAt(data: Uint8Array, position: number): void {
    this.dir.live();
    try {
      this.inner.writeAt(data, position);
    } catch (err) {
      this.dir.check(err);
      throw err;
    }
  }

  read(position: number, length: number, alloc?: (n: number) => Buffer): Promise<Buffer> {
    if (this.dir.isOffline) return Promise.reject(this.dir.refusal());
    return this.inner.read(position, length, alloc).catch(this.dir.failed);
  }

  sync(): Promise<void> {
    if (this.dir.isOffline) return Promise.reject(this.dir.refusal());
    return this.inner.sync().catch(this.dir.failed);
  }

  truncate(size: number): void {
    this.dir.live();
    try {
      this.inner.truncate(size);
    } catch (err) {
      this.dir.check(err);
      throw err;
    }
  }

  /** Always allowed: an offline dir's logs still let go of their descriptors. */
  close(): Promise<void> {
    return this.inner.close();
  }
}
