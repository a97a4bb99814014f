/**
 * Record-batch compression codecs, by Kafka's attribute code (0 none, 1 gzip, 2 snappy, 3 lz4,
 * 4 zstd). Used to build and decode batches (tests, benchmarks, coordinators, ListOffsets record
 * search); the produce and fetch paths never decompress.
 *
 * Wire formats, as Kafka's Java client writes them:
 * - gzip: a gzip member (zlib).
 * - snappy: the xerial "snappy-java" stream framing: header `0x82 'SNAPPY' 0x00`, int32 version,
 *   int32 compatible version, then blocks of [int32 length, raw snappy block]. Decompression also
 *   accepts a bare raw snappy block (librdkafka and some JS clients send that).
 * - lz4: the LZ4 *frame* format (magic 0x184D2204), 64 KiB independent blocks, no checksums;
 *   lz4-napi's `compressFrame` writes exactly this descriptor (FLG 0x60, BD 0x40).
 * - zstd: a zstd frame.
 *
 * Decompression of untrusted input trusts the codec's own size limits; callers that decode
 * client data should bound the input size (max.message.bytes) first.
 */
import { gunzipSync, gzipSync, gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { CompressionType, type CompressionName } from './record-batch.js';
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../generated/error-codes.js';

const require = createRequire(import.meta.url);

interface SnappyModule {
  compressSync(input: Uint8Array): Buffer;
  uncompressSync(input: Uint8Array, options?: { asBuffer?: boolean }): string | Buffer;
  compress(input: Uint8Array): Promise<Buffer>;
  uncompress(input: Uint8Array, options?: { asBuffer?: boolean }): Promise<string | Buffer>;
}
interface Lz4Module {
  compressFrameSync(data: Buffer): Buffer;
  decompressFrameSync(data: Buffer): Buffer;
  compressFrame(data: Uint8Array): Promise<Buffer>;
  decompressFrame(data: Uint8Array): Promise<Buffer>;
}
interface ZstdModule {
  compress(data: Uint8Array): Buffer;
  decompress(data: Uint8Array): Buffer;
}

let snappyMod: SnappyModule | undefined;
let lz4Mod: Lz4Module | undefined;
let zstdMod: ZstdModule | undefined;
// Loaded on first use so that a missing native codec only fails the batches that need it.
function snappy(): SnappyModule { return (snappyMod ??= loadCodec<SnappyModule>('snappy')); }
function lz4(): Lz4Module { return (lz4Mod ??= loadCodec<Lz4Module>('lz4-napi')); }
function zstd(): ZstdModule { return (zstdMod ??= loadCodec<ZstdModule>('zstd-napi')); }

function loadCodec<T>(name: string): T {
  try {
    return require(name) as T;
  } catch (err) {
    throw new KafkaApiError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `compression codec ${name} is not available`, { cause: err });
  }
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** xerial snappy-java stream header: magic (8 bytes), version 1, compatible version 1. */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_SIZE = 16;
/** snappy-java's default block size. */
const XERIAL_BLOCK_SIZE = 32 * 1024;

export function isXerialSnappy(data: Uint8Array): boolean {
  if (data.length < XERIAL_HEADER_SIZE) return false;
  for (let i = 0; i < XERIAL_MAGIC.length; i++) if (data[i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

function toBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length);
}

/** Compresses with snappy in xerial framing (what the Java producer writes). */
export function snappyXerialCompressSync(data: Uint8Array): Buffer {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(XERIAL_HEADER_SIZE);
  XERIAL_MAGIC.copy(header, 0);
  header.writeInt32BE(1, 8);
  header.writeInt32BE(1, 12);
  parts.push(header);
  const input = toBuffer(data);
  for (let off = 0; off < input.length; off += XERIAL_BLOCK_SIZE) {
    const block = snappy().compressSync(input.subarray(off, Math.min(input.length, off + XERIAL_BLOCK_SIZE)));
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(block.length, 0);
    parts.push(len, block);
  }
  return Buffer.concat(parts);
}

function snappyUncompressBlock(block: Uint8Array): Buffer {
  return snappy().uncompressSync(block, { asBuffer: true }) as Buffer;
}

/** Decompresses snappy: xerial framing when the header is there, else one raw snappy block. */
export function snappyDecompressSync(data: Uint8Array): Buffer {
  if (!isXerialSnappy(data)) return snappyUncompressBlock(data);
  const buf = toBuffer(data);
  const out: Buffer[] = [];
  let pos = XERIAL_HEADER_SIZE;
  while (pos < buf.length) {
    if (buf.length - pos < 4) throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, 'truncated xerial snappy block length');
    const len = buf.readInt32BE(pos);
    pos += 4;
    if (len < 0 || len > buf.length - pos) throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, 'xerial snappy block exceeds input');
    out.push(snappyUncompressBlock(buf.subarray(pos, pos + len)));
    pos += len;
  }
  return out.length === 1 ? out[0] : Buffer.concat(out);
}

function codecName(codec: number | CompressionName): CompressionName {
  if (typeof codec === 'string') return codec;
  switch (codec) {
    case CompressionType.none: return 'none';
    case CompressionType.gzip: return 'gzip';
    case CompressionType.snappy: return 'snappy';
    case CompressionType.lz4: return 'lz4';
    case CompressionType.zstd: return 'zstd';
    default: throw new KafkaApiError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `unknown compression type ${codec}`);
  }
}

export function compressSync(codec: number | CompressionName, data: Uint8Array): Buffer {
  switch (codecName(codec)) {
    case 'none': return toBuffer(data);
    case 'gzip': return gzipSync(data);
    case 'snappy': return snappyXerialCompressSync(data);
    case 'lz4': return lz4().compressFrameSync(toBuffer(data));
    case 'zstd': return zstd().compress(data);
  }
}

export function decompressSync(codec: number | CompressionName, data: Uint8Array): Buffer {
  try {
    switch (codecName(codec)) {
      case 'none': return toBuffer(data);
      case 'gzip': return gunzipSync(data);
      case 'snappy': return snappyDecompressSync(data);
      case 'lz4': return lz4().decompressFrameSync(toBuffer(data));
      case 'zstd': return zstd().decompress(data);
    }
  } catch (err) {
    if (err instanceof KafkaApiError) throw err;
    throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, `cannot decompress ${codecName(codec)} data: ${(err as Error).message}`, { cause: err });
  }
}

/** Like compressSync, but off the event loop thread where the codec offers it (gzip, lz4). */
export async function compress(codec: number | CompressionName, data: Uint8Array): Promise<Buffer> {
  switch (codecName(codec)) {
    case 'gzip': return gzipAsync(data);
    case 'lz4': return lz4().compressFrame(data);
    default: return compressSync(codec, data);
  }
}

/** Like decompressSync, but off the event loop thread where the codec offers it (gzip, lz4). */
export async function decompress(codec: number | CompressionName, data: Uint8Array): Promise<Buffer> {
  try {
    switch (codecName(codec)) {
      case 'gzip': return await gunzipAsync(data);
      case 'lz4': return await lz4().decompressFrame(data);
      default: return decompressSync(codec, data);
    }
  } catch (err) {
    if (err instanceof KafkaApiError) throw err;
    throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, `cannot decompress ${codecName(codec)} data: ${(err as Error).message}`, { cause: err });
  }
}
