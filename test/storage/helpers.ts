import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { decodeRecordBatches } from '../../src/protocol/records/record.js';
import { defaultLogConfig, type LogConfig } from '../../src/storage/partition-log.js';
import { MemFs, type FileHandle } from '../../src/storage/fs.js';

export function tempDir(prefix = 'samsa-storage-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function config(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...defaultLogConfig, fileDeleteDelayMs: 0, ...overrides };
}

/** A batch of `count` records with values "<prefix>-<i>" and the given timestamps. */
export function batch(count: number, opts: { prefix?: string; timestamp?: number; valueBytes?: number; compression?: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'; keys?: boolean } = {}): Buffer {
  const ts = BigInt(opts.timestamp ?? 1_700_000_000_000);
  return buildRecordBatch({
    compression: opts.compression,
    records: Array.from({ length: count }, (_, i) => ({
      key: opts.keys ? Buffer.from(`k-${i}`) : null,
      value: opts.valueBytes ? Buffer.alloc(opts.valueBytes, i & 0xff) : Buffer.from(`${opts.prefix ?? 'v'}-${i}`),
      timestamp: ts + BigInt(i),
    })),
  });
}

/** Offsets of every record in the returned buffers. */
export function offsetsOf(buffers: Buffer[]): number[] {
  return buffers.flatMap((b) => decodeRecordBatches(b).flatMap((d) => d.records.map((r) => Number(r.offset))));
}

export function valuesOf(buffers: Buffer[]): string[] {
  return buffers.flatMap((b) => decodeRecordBatches(b).flatMap((d) => d.records.map((r) => r.value?.toString() ?? '<null>')));
}

/** A MemFs whose calls under `broken` prefixes fail with EIO (the disk under a log dir died). */
export class FaultyFs extends MemFs {
  readonly broken = new Set<string>();
  check(p: string): void {
    for (const b of this.broken) if (p === b || p.startsWith(b + '/')) throw Object.assign(new Error(`EIO: i/o error, '${p}'`), { code: 'EIO' });
  }
  override async open(p: string): Promise<FileHandle> {
    this.check(p);
    const h = await super.open(p);
    const fs = this;
    return {
      get path() { return h.path; },
      size: () => h.size(),
      append(d) { fs.check(p); h.append(d); },
      writeAt(d, pos) { fs.check(p); h.writeAt(d, pos); },
      async read(pos, len, alloc) { fs.check(p); return h.read(pos, len, alloc); },
      async sync() { fs.check(p); return h.sync(); },
      truncate(n) { fs.check(p); h.truncate(n); },
      close: () => h.close(),
    };
  }
  override async writeFileAtomic(p: string, d: Uint8Array): Promise<void> {
    this.check(p);
    return super.writeFileAtomic(p, d);
  }
  override async readdir(p: string): Promise<string[]> {
    this.check(p);
    return super.readdir(p);
  }
  override async mkdir(p: string): Promise<void> {
    this.check(p);
    return super.mkdir(p);
  }
}
