/**
 * The file-system seam of the storage layer.
 *
 * `nodeFs` is the real implementation; `MemFs` is an in-memory one for tests that can fail the
 * next write or fsync and simulate a crash that drops every byte not yet fsynced (the model of
 * franz-go kfake's `persist_fs.go`).
 *
 * Sync vs async (measured by bench/storage.ts on this project's machines):
 * - `append`/`writeAt` are synchronous (`fs.writeSync`): a write into the page cache costs a few
 *   microseconds, far less than the thread-pool round trip of `fs.promises` writes, and keeping
 *   them synchronous makes an append atomic with respect to the event loop (no interleaving
 *   between the write and the in-memory bookkeeping that follows it).
 * - `sync` (fdatasync) is asynchronous: it can take milliseconds and runs on the libuv pool, so
 *   appends continue while a group commit is in flight.
 * - `read` is asynchronous: fetches of large ranges may miss the page cache and must not stall
 *   the event loop.
 * - `truncate` is synchronous (it runs on the recovery path and to undo a failed append).
 *
 * Metadata operations (create, rename, unlink) are made durable with `syncDir` where it matters.
 */
import * as nodefs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

export interface FileStat {
  size: number;
  isDirectory: boolean;
  mtimeMs: number;
}

export interface FileHandle {
  readonly path: string;
  /** Current size in bytes as seen through this handle (tracked, no syscall). */
  size(): number;
  /** Appends at the end of the file (synchronous page-cache write). */
  append(data: Uint8Array): void;
  /** Writes at an absolute position (synchronous); may extend the file. */
  writeAt(data: Uint8Array, position: number): void;
  /** Reads up to `length` bytes at `position` into a new Buffer (shorter at end of file). */
  /**
   * Reads up to `length` bytes at `position` (fewer at the end of the file). `alloc`, when given,
   * provides the buffer to read into (e.g. a slice of a recycled slab, see network/read-slabs.ts).
   */
  read(position: number, length: number, alloc?: (n: number) => Buffer): Promise<Buffer>;
  /** fdatasync: everything written so far survives a crash once this resolves. */
  sync(): Promise<void>;
  /** Cuts the file to `size` bytes (synchronous). */
  truncate(size: number): void;
  close(): Promise<void>;
}

/** One file of `writeFilesAtomic`. */
export interface AtomicFile {
  path: string;
  data: Uint8Array;
}

/** `fs.writeFilesAtomic`, or one `writeFileAtomic` after another where the Fs has no such call. */
export async function writeFilesAtomic(fs: Fs, files: readonly AtomicFile[]): Promise<void> {
  if (files.length === 0) return;
  if (fs.writeFilesAtomic && files.length > 1) return fs.writeFilesAtomic(files);
  for (const f of files) await fs.writeFileAtomic(f.path, f.data);
}

export interface Fs {
  /** Opens for reading and writing, creating an empty file if missing. */
  open(filePath: string): Promise<FileHandle>;
  /**
   * Like `open`, for files kept in memory and only written back now and then (the indexes): the
   * handle holds no file descriptor between calls, so thousands of partitions do not hold three
   * descriptors each (Kafka's indexes let go of theirs once memory-mapped). Where absent, `open`.
   */
  openDetached?(filePath: string): Promise<FileHandle>;
  /** `openDetached` plus the file's whole content, in one open (an index being loaded). */
  openDetachedWithContents?(filePath: string): Promise<{ file: FileHandle; contents: Buffer }>;
  readFile(filePath: string): Promise<Buffer>;
  /** Write to `<path>.tmp`, fsync, rename over `path`, fsync the directory (Kafka's checkpoint recipe). */
  writeFileAtomic(filePath: string, data: Uint8Array): Promise<void>;
  /**
   * Several `writeFileAtomic`s made durable together: every file written and fsynced, renamed,
   * then each directory fsynced once (a new partition's two small files cost one directory fsync).
   * Each file is atomic on its own; all are durable when it resolves. Where absent, one by one.
   */
  writeFilesAtomic?(files: readonly AtomicFile[]): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(filePath: string): Promise<void>;
  readdir(dirPath: string): Promise<string[]>;
  /** Creates the directory and any missing parents. */
  mkdir(dirPath: string): Promise<void>;
  stat(filePath: string): Promise<FileStat>;
  exists(filePath: string): Promise<boolean>;
  /** Removes a directory and everything in it. */
  rmdir(dirPath: string): Promise<void>;
  /** Makes creates/renames/unlinks in the directory durable. */
  syncDir(dirPath: string): Promise<void>;
}

/**
 * A file opened on first use (Kafka opens the segments of a log lazily in the same spirit): a
 * log's older segments are known by name and size at start-up and get a descriptor only when
 * something reads them. The synchronous calls (append, writeAt, truncate) need it opened already
 * (`ensureOpen`); segments only write to files they have read or created.
 */
export class LazyFileHandle implements FileHandle {
  private handle: FileHandle | null = null;
  private opening: Promise<FileHandle> | null = null;
  private closed = false;

  /** Changes only while not open (LogSegment.movedTo: its directory was renamed). */
  constructor(private readonly fs: Fs, public path: string, private readonly initialSize: number) {}

  get isOpen(): boolean {
    return this.handle !== null;
  }

  async ensureOpen(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    if (this.closed) throw new Error(`${this.path} is closed`);
    this.opening ??= this.fs.open(this.path).then((h) => {
      this.handle = h;
      return h;
    });
    return this.opening;
  }

  private opened(): FileHandle {
    if (!this.handle) throw new Error(`${this.path} is not open`);
    return this.handle;
  }

  size(): number {
    return this.handle ? this.handle.size() : this.initialSize;
  }

  append(data: Uint8Array): void {
    this.opened().append(data);
  }

  writeAt(data: Uint8Array, position: number): void {
    this.opened().writeAt(data, position);
  }

  async read(position: number, length: number, alloc?: (n: number) => Buffer): Promise<Buffer> {
    return (await this.ensureOpen()).read(position, length, alloc);
  }

  async sync(): Promise<void> {
    // Never opened here: nothing was written through this handle.
    if (this.handle) await this.handle.sync();
  }

  truncate(size: number): void {
    this.opened().truncate(size);
  }

  async close(): Promise<void> {
    this.closed = true;
    const h = this.handle ?? (this.opening ? await this.opening.catch(() => null) : null);
    this.handle = null;
    await h?.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Node implementation

const fdatasyncAsync = promisify(nodefs.fdatasync);
const closeAsync = promisify(nodefs.close);
const openAsync = promisify(nodefs.open);
function readAsync(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    nodefs.read(fd, buffer, offset, length, position, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead)));
  });
}
const RW_CREATE = nodefs.constants.O_RDWR | nodefs.constants.O_CREAT;

export class NodeFileHandle implements FileHandle {
  private bytes: number;
  constructor(
    readonly path: string,
    private readonly fd: number,
    size: number,
  ) {
    this.bytes = size;
  }

  size(): number {
    return this.bytes;
  }

  append(data: Uint8Array): void {
    this.writeAt(data, this.bytes);
  }

  writeAt(data: Uint8Array, position: number): void {
    let done = 0;
    while (done < data.length) {
      done += nodefs.writeSync(this.fd, data, done, data.length - done, position + done);
    }
    if (position + data.length > this.bytes) this.bytes = position + data.length;
  }

  async read(position: number, length: number, alloc?: (n: number) => Buffer): Promise<Buffer> {
    const len = Math.max(0, Math.min(length, this.bytes - position));
    const buf = alloc ? alloc(len) : Buffer.allocUnsafe(len);
    let done = 0;
    while (done < len) {
      const n = await readAsync(this.fd, buf, done, len - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done === len ? buf : buf.subarray(0, done);
  }

  sync(): Promise<void> {
    return fdatasyncAsync(this.fd);
  }

  truncate(size: number): void {
    nodefs.ftruncateSync(this.fd, size);
    this.bytes = size;
  }

  close(): Promise<void> {
    return closeAsync(this.fd);
  }
}

/**
 * A handle that opens its file for each write, truncate or sync and closes it again (fdatasync on
 * a fresh descriptor flushes the file's data all the same: it is per file, not per descriptor).
 */
export class DetachedFileHandle implements FileHandle {
  constructor(readonly path: string, private bytes: number) {}

  private withFd<T>(fn: (fd: number) => T): T {
    const fd = nodefs.openSync(this.path, RW_CREATE, 0o644);
    try {
      return fn(fd);
    } finally {
      nodefs.closeSync(fd);
    }
  }

  size(): number {
    return this.bytes;
  }

  append(data: Uint8Array): void {
    this.writeAt(data, this.bytes);
  }

  writeAt(data: Uint8Array, position: number): void {
    this.withFd((fd) => {
      let done = 0;
      while (done < data.length) done += nodefs.writeSync(fd, data, done, data.length - done, position + done);
    });
    if (position + data.length > this.bytes) this.bytes = position + data.length;
  }

  async read(position: number, length: number, alloc?: (n: number) => Buffer): Promise<Buffer> {
    const fd = await openAsync(this.path, RW_CREATE, 0o644);
    try {
      return await new NodeFileHandle(this.path, fd, this.bytes).read(position, length, alloc);
    } finally {
      await closeAsync(fd);
    }
  }

  async sync(): Promise<void> {
    const fd = await openAsync(this.path, RW_CREATE, 0o644);
    try {
      await fdatasyncAsync(fd);
    } finally {
      await closeAsync(fd);
    }
  }

  truncate(size: number): void {
    this.withFd((fd) => nodefs.ftruncateSync(fd, size));
    this.bytes = size;
  }

  async close(): Promise<void> {}
}

export const nodeFs: Fs = {
  async open(filePath) {
    const fd = await openAsync(filePath, RW_CREATE, 0o644);
    const st = nodefs.fstatSync(fd);
    return new NodeFileHandle(filePath, fd, st.size);
  },
  async openDetached(filePath) {
    const fd = await openAsync(filePath, RW_CREATE, 0o644);
    try {
      return new DetachedFileHandle(filePath, nodefs.fstatSync(fd).size);
    } finally {
      await closeAsync(fd);
    }
  },
  async openDetachedWithContents(filePath) {
    const fd = await openAsync(filePath, RW_CREATE, 0o644);
    try {
      const size = nodefs.fstatSync(fd).size;
      const contents = Buffer.allocUnsafe(size);
      let done = 0;
      while (done < size) {
        const n = await readAsync(fd, contents, done, size - done, done);
        if (n === 0) break;
        done += n;
      }
      return { file: new DetachedFileHandle(filePath, size), contents: done === size ? contents : contents.subarray(0, done) };
    } finally {
      await closeAsync(fd);
    }
  },
  readFile: (p) => nodefs.promises.readFile(p),
  writeFileAtomic: (filePath, data) => nodeFs.writeFilesAtomic!([{ path: filePath, data }]),
  async writeFilesAtomic(files) {
    await Promise.all(files.map(async (f) => {
      const fh = await nodefs.promises.open(`${f.path}.tmp`, 'w');
      try {
        await fh.writeFile(f.data);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }));
    for (const f of files) await nodefs.promises.rename(`${f.path}.tmp`, f.path);
    for (const dir of new Set(files.map((f) => path.dirname(f.path)))) await nodeFs.syncDir(dir);
  },
  rename: (a, b) => nodefs.promises.rename(a, b),
  unlink: (p) => nodefs.promises.unlink(p),
  readdir: (p) => nodefs.promises.readdir(p),
  async mkdir(p) {
    await nodefs.promises.mkdir(p, { recursive: true });
  },
  async stat(p) {
    const st = await nodefs.promises.stat(p);
    return { size: st.size, isDirectory: st.isDirectory(), mtimeMs: st.mtimeMs };
  },
  async exists(p) {
    try {
      await nodefs.promises.access(p);
      return true;
    } catch {
      return false;
    }
  },
  rmdir: (p) => nodefs.promises.rm(p, { recursive: true, force: true }),
  async syncDir(p) {
    let fd: number | undefined;
    try {
      fd = await openAsync(p, nodefs.constants.O_RDONLY, 0);
      await promisify(nodefs.fsync)(fd);
    } catch (err) {
      // Some platforms cannot fsync a directory (EISDIR/EINVAL/EPERM); Kafka ignores those too.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw err;
    } finally {
      if (fd !== undefined) await closeAsync(fd);
    }
  },
};

// ---------------------------------------------------------------------------------------------
// In-memory implementation with fault injection

class MemFile {
  data: Buffer = Buffer.alloc(0);
  length = 0;
  /** Content as of the last fsync (what survives crash()). */
  synced: Buffer = Buffer.alloc(0);
  mtimeMs: number;
  constructor(now: number) {
    this.mtimeMs = now;
  }

  ensure(n: number): void {
    if (n <= this.data.length) return;
    const next = Buffer.alloc(Math.max(n, this.data.length * 2, 256));
    this.data.copy(next, 0, 0, this.length);
    this.data = next;
  }
}

function enoent(p: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, '${p}'`), { code: 'ENOENT' });
}

function eio(what: string): Error {
  return Object.assign(new Error(`EIO: injected ${what} failure`), { code: 'EIO' });
}

class MemFileHandle implements FileHandle {
  constructor(
    private readonly fs: MemFs,
    readonly path: string,
    private readonly file: MemFile,
    private readonly generation: number,
  ) {}

  private live(): MemFile {
    if (this.generation !== this.fs.generation) throw Object.assign(new Error('EBADF: handle from before crash()'), { code: 'EBADF' });
    return this.file;
  }

  size(): number {
    return this.live().length;
  }

  append(data: Uint8Array): void {
    this.writeAt(data, this.live().length);
  }

  writeAt(data: Uint8Array, position: number): void {
    const f = this.live();
    this.fs.beforeWrite();
    f.ensure(position + data.length);
    f.data.set(data, position);
    if (position + data.length > f.length) f.length = position + data.length;
    f.mtimeMs = this.fs.now();
  }

  async read(position: number, length: number, alloc?: (n: number) => Buffer): Promise<Buffer> {
    const f = this.live();
    const end = Math.min(f.length, position + length);
    this.fs.readCount++;
    if (end <= position) return Buffer.alloc(0);
    const out = alloc ? alloc(end - position) : Buffer.allocUnsafe(end - position);
    f.data.copy(out, 0, position, end);
    return out;
  }

  async sync(): Promise<void> {
    const f = this.live();
    this.fs.syncCount++;
    this.fs.syncedPaths.push(this.path);
    const fail = this.fs.pendingSyncFailure;
    this.fs.pendingSyncFailure = false;
    const snapshot = Buffer.from(f.data.subarray(0, f.length));
    await this.fs.syncLatency();
    if (fail) throw eio('fsync');
    f.synced = snapshot;
  }

  truncate(size: number): void {
    const f = this.live();
    if (size < f.length) f.data.fill(0, size, f.length);
    f.ensure(size);
    f.length = size;
  }

  async close(): Promise<void> {
    this.fs.openHandles--;
  }
}

/**
 * In-memory file system. Directory entries (create, rename, unlink) are durable at once; file
 * contents survive `crash()` only up to their last `sync()`.
 */
export class MemFs implements Fs {
  private files = new Map<string, MemFile>();
  private dirs = new Set<string>(['/']);
  /** Bumped by crash(): handles opened before it stop working. */
  generation = 0;
  /** fsyncs of open files (FileHandle.sync); atomic small-file writes are counted in atomicWriteCount. */
  syncCount = 0;
  atomicWriteCount = 0;
  readCount = 0;
  writeCount = 0;
  openHandles = 0;
  /** Paths passed to sync(), in order (for assertions about what was fsynced). */
  syncedPaths: string[] = [];
  pendingSyncFailure = false;
  private pendingWriteFailure = false;

  /**
   * @param options.now       mtime source for files
   * @param options.syncLatency awaited inside every fsync (default: one microtask); tests pass
   *                          e.g. `() => new Promise((r) => setImmediate(r))` to let callers pile up
   */
  constructor(options: { now?: () => number; syncLatency?: () => Promise<void> } = {}) {
    this.now = options.now ?? (() => Date.now());
    this.syncLatency = options.syncLatency ?? (() => Promise.resolve());
  }

  readonly now: () => number;
  readonly syncLatency: () => Promise<void>;

  /** The next write (append or writeAt) throws EIO and changes nothing. */
  failNextWrite(): void {
    this.pendingWriteFailure = true;
  }

  /** The next fsync rejects with EIO (and makes nothing durable). */
  failNextSync(): void {
    this.pendingSyncFailure = true;
  }

  /** Simulates power loss: every file reverts to its content at its last fsync; open handles die. */
  crash(): void {
    for (const f of this.files.values()) {
      f.data = Buffer.from(f.synced);
      f.length = f.synced.length;
    }
    this.generation++;
    this.openHandles = 0;
    this.pendingSyncFailure = false;
    this.pendingWriteFailure = false;
  }

  beforeWrite(): void {
    this.writeCount++;
    if (this.pendingWriteFailure) {
      this.pendingWriteFailure = false;
      throw eio('write');
    }
  }

  /** Test helper: the bytes of a file (copy). */
  contents(filePath: string): Buffer {
    const f = this.files.get(norm(filePath));
    if (!f) throw enoent(filePath);
    return Buffer.from(f.data.subarray(0, f.length));
  }

  /** Test helper: replaces a file's bytes (durably), e.g. to corrupt it. */
  setContents(filePath: string, data: Uint8Array): void {
    const p = norm(filePath);
    this.requireParent(p);
    const f = this.files.get(p) ?? new MemFile(this.now());
    f.data = Buffer.from(data);
    f.length = data.length;
    f.synced = Buffer.from(data);
    this.files.set(p, f);
  }

  private requireParent(p: string): void {
    if (!this.dirs.has(path.dirname(p))) throw enoent(path.dirname(p));
  }

  async open(filePath: string): Promise<FileHandle> {
    const p = norm(filePath);
    this.requireParent(p);
    let f = this.files.get(p);
    if (!f) {
      f = new MemFile(this.now());
      this.files.set(p, f);
    }
    this.openHandles++;
    return new MemFileHandle(this, p, f, this.generation);
  }

  async readFile(filePath: string): Promise<Buffer> {
    return this.contents(filePath);
  }

  async writeFileAtomic(filePath: string, data: Uint8Array): Promise<void> {
    const p = norm(filePath);
    this.requireParent(p);
    this.beforeWrite();
    this.atomicWriteCount++;
    if (this.pendingSyncFailure) {
      this.pendingSyncFailure = false;
      throw eio('fsync');
    }
    this.setContents(p, data);
  }

  /** Calls of writeFilesAtomic (each file of one also counts in atomicWriteCount). */
  atomicBatchCount = 0;

  async writeFilesAtomic(files: readonly AtomicFile[]): Promise<void> {
    this.atomicBatchCount++;
    for (const f of files) await this.writeFileAtomic(f.path, f.data);
  }

  async rename(from: string, to: string): Promise<void> {
    const a = norm(from);
    const b = norm(to);
    const f = this.files.get(a);
    if (f) {
      this.requireParent(b);
      this.files.delete(a);
      this.files.set(b, f);
      return;
    }
    if (!this.dirs.has(a)) throw enoent(from);
    const prefix = a + '/';
    for (const d of [...this.dirs]) {
      if (d === a || d.startsWith(prefix)) {
        this.dirs.delete(d);
        this.dirs.add(b + d.slice(a.length));
      }
    }
    for (const [k, v] of [...this.files]) {
      if (k.startsWith(prefix)) {
        this.files.delete(k);
        this.files.set(b + k.slice(a.length), v);
      }
    }
  }

  async unlink(filePath: string): Promise<void> {
    if (!this.files.delete(norm(filePath))) throw enoent(filePath);
  }

  async readdir(dirPath: string): Promise<string[]> {
    const d = norm(dirPath);
    if (!this.dirs.has(d)) throw enoent(dirPath);
    const out = new Set<string>();
    const prefix = d === '/' ? '/' : d + '/';
    for (const k of [...this.files.keys(), ...this.dirs]) {
      if (k.startsWith(prefix) && k !== d) {
        const rest = k.slice(prefix.length);
        if (rest.length > 0 && !rest.includes('/')) out.add(rest);
      }
    }
    return [...out].sort();
  }

  async mkdir(dirPath: string): Promise<void> {
    let d = norm(dirPath);
    while (!this.dirs.has(d)) {
      this.dirs.add(d);
      d = path.dirname(d);
    }
  }

  async stat(filePath: string): Promise<FileStat> {
    const p = norm(filePath);
    const f = this.files.get(p);
    if (f) return { size: f.length, isDirectory: false, mtimeMs: f.mtimeMs };
    if (this.dirs.has(p)) return { size: 0, isDirectory: true, mtimeMs: 0 };
    throw enoent(filePath);
  }

  async exists(filePath: string): Promise<boolean> {
    const p = norm(filePath);
    return this.files.has(p) || this.dirs.has(p);
  }

  async rmdir(dirPath: string): Promise<void> {
    const d = norm(dirPath);
    const prefix = d + '/';
    for (const k of [...this.files.keys()]) if (k.startsWith(prefix)) this.files.delete(k);
    for (const k of [...this.dirs]) if (k === d || k.startsWith(prefix)) this.dirs.delete(k);
  }

  async syncDir(): Promise<void> {
    // Directory entries are durable immediately in this model.
  }
}

function norm(p: string): string {
  return path.resolve('/', p);
}
