/**
 * Raw wire access for the protocol probes: request frames built with Samsa's generated codecs
 * (bodies filled from protocol-specs/ defaults, see fill.ts) or given as bytes, sent over a plain
 * connection to 127.0.0.1 (src/protocol/kafka-connection.ts, raw bytes out and frames in arrival
 * order), and the outcome classified so that two brokers can be compared:
 *
 * - `answered`: a response frame with the probe's correlation id, decoded with the generated
 *   codec; bytes left after the body and tagged fields the codec does not know are kept, so a
 *   field missing from our specs shows up as a difference instead of vanishing.
 * - `no-reply`: the follow-up request (ApiVersions v0, pipelined behind every probe) was
 *   answered first, so the probe got no response at all (acks=0 Produce).
 * - `closed`: the broker closed the connection before answering either.
 *
 * The follow-up makes "no reply" observable without waiting for a timeout: both brokers answer
 * requests of one connection strictly in order.
 */
import { codecFor, type ApiCodec } from '../../src/protocol/generated/api-table.js';
import { readResponseHeader, responseHeaderFlexible, writeRequestHeader } from '../../src/protocol/headers.js';
import { KafkaConnection } from '../../src/protocol/kafka-connection.js';
import { Reader } from '../../src/protocol/reader.js';
import { Writer } from '../../src/protocol/writer.js';
import { fill } from './fill.js';

export const PROBE_CLIENT_ID = 'samsa-probe';
/** Correlation id of the pipelined follow-up (probes use small ids). */
const FOLLOW_UP_CORRELATION_ID = 0x7ffffff0;
/** Upper bound for one exchange; only reached when a broker hangs (a failure, reported as such). */
const EXCHANGE_DEADLINE_MS = 15_000;

export type Outcome =
  | { kind: 'answered'; body: unknown; trailingBytes: number; unknownTags: string[]; decodeError?: string; raw?: string }
  | { kind: 'no-reply' }
  | { kind: 'closed' }
  | { kind: 'timeout' };

export function codec(apiKey: number): ApiCodec<any, any> {
  const c = codecFor(apiKey);
  if (!c) throw new Error(`no codec for api key ${apiKey}`);
  return c;
}

export function isFlexible(apiKey: number, version: number): boolean {
  const c = codecFor(apiKey);
  return c !== undefined && c.flexibleFrom >= 0 && version >= c.flexibleFrom;
}

export interface FrameOptions {
  correlationId?: number;
  clientId?: string | null;
  /** Bytes appended after the encoded body (inside the frame). */
  trailing?: Buffer;
  /** Header version override: write the v2 header (tag section) or not, whatever the version says. */
  flexibleHeader?: boolean;
}

/** A whole request frame (size prefix included); the body is filled with spec defaults first. */
export function requestFrame(apiKey: number, version: number, body: Record<string, unknown>, o: FrameOptions = {}): Buffer {
  const c = codec(apiKey);
  const w = new Writer(512);
  w.int32(0);
  const flexible = o.flexibleHeader ?? isFlexible(apiKey, version);
  writeRequestHeader(w, { apiKey, apiVersion: version, correlationId: o.correlationId ?? 1, clientId: o.clientId === undefined ? PROBE_CLIENT_ID : o.clientId }, flexible);
  c.writeRequest(w, version, fill(`${c.name}Request`, version, body) as never);
  if (o.trailing) w.bytesRaw(o.trailing);
  w.patchInt32(0, w.length - 4);
  return w.toBuffer();
}

/** A frame from raw header fields and body bytes (for hostile headers and unknown APIs). */
export function rawFrame(apiKey: number, version: number, body: Buffer, o: FrameOptions = {}): Buffer {
  const w = new Writer(64 + body.length);
  w.int32(0);
  writeRequestHeader(w, { apiKey, apiVersion: version, correlationId: o.correlationId ?? 1, clientId: o.clientId === undefined ? PROBE_CLIENT_ID : o.clientId }, o.flexibleHeader ?? false);
  w.bytesRaw(body);
  w.patchInt32(0, w.length - 4);
  return w.toBuffer();
}

/**
 * A Reader that keeps the tagged fields the generated code skips (tag, size and bytes), so a
 * tagged field one broker sends and the other does not is visible in the comparison.
 */
class TagKeepingReader extends Reader {
  readonly unknownTags: string[] = [];
  private sections = 0;

  override taggedFields(onTag?: (tag: number, r: Reader) => boolean): void {
    const section = this.sections++;
    super.taggedFields((tag, sub) => {
      if (onTag && onTag(tag, sub)) return true;
      this.unknownTags.push(`section ${section} tag ${tag}: ${sub.buf.subarray(sub.pos, sub.end).toString('hex')}`);
      return false;
    });
  }
}

/** Decodes a response payload (frame without size prefix) of apiKey/version. */
export function decodeResponse(apiKey: number, version: number, payload: Buffer): Extract<Outcome, { kind: 'answered' }> {
  const c = codecFor(apiKey);
  // An API Samsa has no codec for (a capture of ConsumerGroupHeartbeat, say): only "answered" is compared.
  if (!c) return { kind: 'answered', body: { undecoded: `api key ${apiKey} (no codec)` }, trailingBytes: 0, unknownTags: [] };
  const r = new TagKeepingReader(payload);
  try {
    readResponseHeader(r, responseHeaderFlexible(apiKey, isFlexible(apiKey, version)));
    const body = c.readResponse(r, version);
    return { kind: 'answered', body, trailingBytes: r.remaining, unknownTags: r.unknownTags };
  } catch (e) {
    return { kind: 'answered', body: null, trailingBytes: r.remaining, unknownTags: r.unknownTags, decodeError: (e as Error).message, raw: payload.toString('hex') };
  }
}

/**
 * One probe connection (a KafkaConnection): bytes go out as they are, and every response frame
 * comes back in arrival order (the probes send no request it would match); every wait is bounded.
 */
export class RawConn {
  private constructor(private readonly conn: KafkaConnection) {}

  static async open(port: number): Promise<RawConn> {
    return new RawConn(await KafkaConnection.connect({ host: '127.0.0.1', port, keepUnmatched: true }));
  }

  get isClosed(): boolean {
    return this.conn.isClosed;
  }

  write(b: Buffer): void {
    this.conn.write(b);
  }

  /** The next response frame (without size), null once the connection closed, 'timeout' after the deadline. */
  async next(deadline: number): Promise<Buffer | null | 'timeout'> {
    const f = await this.conn.receiveUnmatched(deadline - Date.now());
    return f === 'closed' ? null : f;
  }

  close(): void {
    this.conn.close();
  }
}

const FOLLOW_UP = rawFrame(18, 0, Buffer.alloc(0), { correlationId: FOLLOW_UP_CORRELATION_ID });

/** Correlation id of a whole frame (size prefix included), or null when the frame is too short to have one. */
function frameCorrelationId(frame: Buffer): number | null {
  return frame.length >= 12 ? frame.readInt32BE(8) : null;
}

/**
 * Sends `frame` (size prefix included) and the follow-up on `conn`, and classifies what comes
 * back. `decodeAs` names the API and version used to decode the answer (default: the frame's).
 */
export async function exchange(conn: RawConn, frame: Buffer, decodeAs?: { apiKey: number; version: number }, deadlineMs = EXCHANGE_DEADLINE_MS): Promise<Outcome> {
  const cid = frameCorrelationId(frame);
  conn.write(Buffer.concat([frame, FOLLOW_UP]));
  const deadline = Date.now() + deadlineMs;
  const first = await conn.next(deadline);
  if (first === 'timeout') return { kind: 'timeout' };
  if (first === null) return { kind: 'closed' };
  const got = first.readInt32BE(0);
  if (got === FOLLOW_UP_CORRELATION_ID && cid !== FOLLOW_UP_CORRELATION_ID) return { kind: 'no-reply' };
  if (got !== cid) throw new Error(`response with correlation id ${got}, expected ${cid}`);
  const apiKey = decodeAs?.apiKey ?? frame.readInt16BE(4);
  const version = decodeAs?.version ?? frame.readInt16BE(6);
  const outcome = decodeResponse(apiKey, version, first);
  // Drain the follow-up's answer so the connection can carry the next probe.
  const second = await conn.next(deadline);
  if (second !== null && second !== 'timeout' && second.readInt32BE(0) !== FOLLOW_UP_CORRELATION_ID) {
    throw new Error('unexpected second response');
  }
  return outcome;
}
