/**
 * An ObjectStore on any S3-compatible endpoint (AWS S3, Versity's gateway, MinIO, Ceph RGW, R2),
 * through `@aws-sdk/client-s3`, which is imported only when a broker turns tiered storage on: a
 * broker without it starts as fast and as small as before.
 *
 * - Credentials: `samsa.remote.s3.access.key.id` / `.secret.access.key` when set, else the SDK's
 *   usual chain (AWS_ACCESS_KEY_ID, ~/.aws, instance roles).
 * - A file larger than `partBytes` goes up as a multipart upload, one part read from the file at a
 *   time (a 1 GiB segment never sits in memory); smaller bodies in one PutObject.
 * - `ifNoneMatch` sends `If-None-Match: *`: 412 (or 409, a concurrent conditional write) is
 *   ObjectStoreError('exists').
 * - Checksums only where the API requires them, so stores without the newer CRC headers work.
 */
import { createHash, createHmac } from 'node:crypto';
import { ObjectStoreError, type ObjectBody, type ObjectInfo, type ObjectSource, type ObjectStore } from './object-store.js';

export interface S3Settings {
  endpoint: string;
  region: string;
  bucket: string;
  /** S3 path-style addressing (http://host/bucket/key), as most self-hosted stores want. */
  pathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Bodies above this go up in parts of this size (S3's minimum part is 5 MiB). */
  partBytes: number;
  /** Per request, ms. */
  requestTimeoutMs: number;
}

type S3Module = typeof import('@aws-sdk/client-s3');

const HASH_SLICE = 256 * 1024;

/**
 * The SDK's SHA-256 (request signing hashes every payload, HMACs for the key), computed a slice
 * at a time with the event loop let go in between: hashing an 8 MiB part at once held the loop
 * for ~20 ms, which produce requests waiting on this broker felt as latency.
 */
function bytesOf(v: string | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return new Uint8Array(v);
}

class SlicedSha256 {
  private readonly hash;
  private readonly pending: Uint8Array[] = [];

  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }

  update(data: Uint8Array): void {
    this.pending.push(data);
  }

  async digest(): Promise<Uint8Array> {
    for (const data of this.pending) {
      for (let pos = 0; pos < data.length; pos += HASH_SLICE) {
        this.hash.update(data.subarray(pos, pos + HASH_SLICE));
        if (data.length > HASH_SLICE) await new Promise((r) => setImmediate(r));
      }
    }
    this.pending.length = 0;
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.pending.length = 0;
  }
}
type S3Client = InstanceType<S3Module['S3Client']>;

interface S3ErrorLike {
  name?: string;
  $metadata?: { httpStatusCode?: number };
  message?: string;
}

function mapError(err: unknown, what: string): ObjectStoreError {
  if (err instanceof ObjectStoreError) return err;
  const e = err as S3ErrorLike;
  const status = e?.$metadata?.httpStatusCode;
  const detail = `${what}: ${e?.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(err)}`;
  if (status === 404 || e?.name === 'NoSuchKey' || e?.name === 'NotFound') return new ObjectStoreError('not-found', detail, { cause: err });
  if (status === 412 || status === 409 || e?.name === 'PreconditionFailed') return new ObjectStoreError('exists', detail, { cause: err });
  return new ObjectStoreError('unavailable', detail, { cause: err });
}

export class S3ObjectStore implements ObjectStore {
  private constructor(private readonly s3: S3Module, private readonly client: S3Client, private readonly settings: S3Settings) {}

  static async connect(settings: S3Settings): Promise<S3ObjectStore> {
    const s3 = await import('@aws-sdk/client-s3');
    const client = new s3.S3Client({
      endpoint: settings.endpoint || undefined,
      region: settings.region,
      forcePathStyle: settings.pathStyle,
      credentials: settings.accessKeyId ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey ?? '' } : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Tiered storage retries with its own backoff.
      maxAttempts: 2,
      requestHandler: { requestTimeout: settings.requestTimeoutMs, connectionTimeout: Math.min(settings.requestTimeoutMs, 10_000) },
      sha256: SlicedSha256,
    });
    return new S3ObjectStore(s3, client, settings);
  }

  private get bucket(): string {
    return this.settings.bucket;
  }

  async put(key: string, body: ObjectBody, opts?: { ifNoneMatch?: boolean }): Promise<void> {
    const IfNoneMatch = opts?.ifNoneMatch ? '*' : undefined;
    try {
      if (Buffer.isBuffer(body)) {
        await this.client.send(new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.length, IfNoneMatch }));
        return;
      }
      if (body.size <= this.settings.partBytes) {
        const bytes = await body.read(0, body.size);
        await this.client.send(new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length, IfNoneMatch }));
        return;
      }
      await this.putMultipart(key, body, IfNoneMatch);
    } catch (err) {
      throw mapError(err, `put ${key}`);
    }
  }

  private async putMultipart(key: string, body: ObjectSource, IfNoneMatch: string | undefined): Promise<void> {
    const { UploadId } = await this.client.send(new this.s3.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key }));
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    try {
      for (let pos = 0, n = 1; pos < body.size; n++) {
        const len = Math.min(this.settings.partBytes, body.size - pos);
        const part = await body.read(pos, len);
        if (part.length !== len) throw new Error(`${key}: the source is shorter than ${body.size} bytes`);
        const r = await this.client.send(new this.s3.UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId, PartNumber: n, Body: part, ContentLength: len }));
        parts.push({ ETag: r.ETag, PartNumber: n });
        pos += len;
      }
      await this.client.send(new this.s3.CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId, MultipartUpload: { Parts: parts }, IfNoneMatch }));
    } catch (err) {
      await this.client.send(new this.s3.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId })).catch(() => undefined);
      throw err;
    }
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Buffer> {
    try {
      if (range && range.end <= range.start) return Buffer.alloc(0);
      const r = await this.client.send(new this.s3.GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end - 1}` : undefined }));
      const bytes = await r.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      throw mapError(err, `get ${key}`);
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    try {
      const r = await this.client.send(new this.s3.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: Number(r.ContentLength ?? 0) };
    } catch (err) {
      const mapped = mapError(err, `head ${key}`);
      if (mapped.kind === 'not-found') return null;
      throw mapped;
    }
  }

  async list(prefix: string): Promise<ObjectInfo[]> {
    const out: ObjectInfo[] = [];
    try {
      let token: string | undefined;
      do {
        const r = await this.client.send(new this.s3.ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of r.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: Number(o.Size ?? 0), lastModifiedMs: o.LastModified?.getTime() });
        token = r.IsTruncated ? r.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw mapError(err, `list ${prefix}`);
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(keys: readonly string[]): Promise<void> {
    // One DeleteObject per key: DeleteObjects needs a Content-MD5 or CRC that not every store takes.
    for (const key of keys) {
      try {
        await this.client.send(new this.s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
      } catch (err) {
        const mapped = mapError(err, `delete ${key}`);
        if (mapped.kind !== 'not-found') throw mapped;
      }
    }
  }

  /** Creates the bucket when it does not exist (development stores start empty). */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new this.s3.HeadBucketCommand({ Bucket: this.bucket }));
    } catch {
      try {
        await this.client.send(new this.s3.CreateBucketCommand({ Bucket: this.bucket }));
      } catch (err) {
        const mapped = mapError(err, `create bucket ${this.bucket}`);
        if (mapped.kind !== 'exists') throw mapped;
      }
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
