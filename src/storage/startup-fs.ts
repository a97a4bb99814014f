/**
 * The real file system for loading a log dir: synchronous metadata calls while nothing is served.
 *
 * A start-up opens thousands of partition directories, each with about fifteen small calls (its
 * directory listing, partition.metadata, leader-epoch-checkpoint, the active segment and its two
 * indexes, the producer snapshot). Through `fs.promises` each is a thread-pool round trip plus a
 * promise, which costs many times the system call itself: a 10,000-partition start spent ~3 s
 * there with the main thread busy (bench/scale.ts, docs/performance.md). LogManager.loadAll runs
 * before the broker listens, so blocking the event loop costs nobody anything then: while
 * `starting`, opens, small reads, listings, stats, renames and unlinks are synchronous. fsyncs
 * (`writeFileAtomic`, `syncDir`) and segment data reads (FileHandle.read) stay asynchronous.
 * After `end()` every call goes to `nodeFs`, so the logs opened through this Fs behave as
 * before from then on (their file handles are nodeFs's own).
 */
import * as nodefs from 'node:fs';
import { DetachedFileHandle, NodeFileHandle, nodeFs, type AtomicFile, type FileHandle, type FileStat, type Fs } from './fs.js';

const RW_CREATE = nodefs.constants.O_RDWR | nodefs.constants.O_CREAT;

export class StartupFs implements Fs {
  private starting = true;

  /** Start-up is over: from now on every call is nodeFs's. */
  end(): void {
    this.starting = false;
  }

  async open(filePath: string): Promise<FileHandle> {
    if (!this.starting) return nodeFs.open(filePath);
    const fd = nodefs.openSync(filePath, RW_CREATE, 0o644);
    return new NodeFileHandle(filePath, fd, nodefs.fstatSync(fd).size);
  }

  async openDetached(filePath: string): Promise<FileHandle> {
    if (!this.starting) return nodeFs.openDetached!(filePath);
    const fd = nodefs.openSync(filePath, RW_CREATE, 0o644);
    try {
      return new DetachedFileHandle(filePath, nodefs.fstatSync(fd).size);
    } finally {
      nodefs.closeSync(fd);
    }
  }

  async openDetachedWithContents(filePath: string): Promise<{ file: FileHandle; contents: Buffer }> {
    if (!this.starting) return nodeFs.openDetachedWithContents!(filePath);
    const fd = nodefs.openSync(filePath, RW_CREATE, 0o644);
    try {
      const contents = readAllSync(fd);
      return { file: new DetachedFileHandle(filePath, contents.length), contents };
    } finally {
      nodefs.closeSync(fd);
    }
  }

  async readFile(filePath: string): Promise<Buffer> {
    return this.starting ? nodefs.readFileSync(filePath) : nodeFs.readFile(filePath);
  }

  writeFileAtomic(filePath: string, data: Uint8Array): Promise<void> {
    return nodeFs.writeFileAtomic(filePath, data);
  }

  writeFilesAtomic(files: readonly AtomicFile[]): Promise<void> {
    return nodeFs.writeFilesAtomic!(files);
  }

  async rename(from: string, to: string): Promise<void> {
    if (this.starting) nodefs.renameSync(from, to);
    else await nodeFs.rename(from, to);
  }

  async unlink(filePath: string): Promise<void> {
    if (this.starting) nodefs.unlinkSync(filePath);
    else await nodeFs.unlink(filePath);
  }

  async readdir(dirPath: string): Promise<string[]> {
    return this.starting ? nodefs.readdirSync(dirPath) : nodeFs.readdir(dirPath);
  }

  async mkdir(dirPath: string): Promise<void> {
    if (this.starting) nodefs.mkdirSync(dirPath, { recursive: true });
    else await nodeFs.mkdir(dirPath);
  }

  async stat(filePath: string): Promise<FileStat> {
    if (!this.starting) return nodeFs.stat(filePath);
    const st = nodefs.statSync(filePath);
    return { size: st.size, isDirectory: st.isDirectory(), mtimeMs: st.mtimeMs };
  }

  async exists(filePath: string): Promise<boolean> {
    return this.starting ? nodefs.existsSync(filePath) : nodeFs.exists(filePath);
  }

  rmdir(dirPath: string): Promise<void> {
    return nodeFs.rmdir(dirPath);
  }

  syncDir(dirPath: string): Promise<void> {
    return nodeFs.syncDir(dirPath);
  }

  /** Names of the subdirectories of `dirPath` (one listing, no stat per entry). */
  async subdirectories(dirPath: string): Promise<Set<string>> {
    const entries = this.starting ? nodefs.readdirSync(dirPath, { withFileTypes: true }) : await nodefs.promises.readdir(dirPath, { withFileTypes: true });
    return new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
  }
}

function readAllSync(fd: number): Buffer {
  const size = nodefs.fstatSync(fd).size;
  const buf = Buffer.allocUnsafe(size);
  let done = 0;
  while (done < size) {
    const n = nodefs.readSync(fd, buf, done, size - done, done);
    if (n === 0) break;
    done += n;
  }
  return done === size ? buf : buf.subarray(0, done);
}
