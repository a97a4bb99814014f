/**
 * Loads the golden wire bytes in /work/shared/fixtures (see its README.md) and splits each one
 * into header and body according to its framing, so tests can decode bodies with our codecs.
 *
 * - kafkajs/: `body-only` (request: body; response: body after the correlation id),
 *   `hdr-tags+body` (one 0x00 byte = the header's empty tag section, then the body),
 *   `embedded` (not a message: skipped).
 * - captures/: whole frames without the int32 size prefix. Request: api key, api version,
 *   correlation id, int16 client id, [tag section for header v2], body. Response: correlation id,
 *   [tag section for header v1], body.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from '../../tools/codegen/paths.js';

export const FIXTURES_DIR = resolve(ROOT, '..', 'shared', 'fixtures');

export type Direction = 'request' | 'response';

export interface KafkajsRow {
  set: 'kafkajs';
  file: string;
  apiKey: number;
  apiName: string;
  direction: Direction;
  version: number;
  framing: 'body-only' | 'hdr-tags+body' | 'embedded';
  byteLength: number;
  notes: string;
}

export interface CaptureRow {
  set: 'captures';
  file: string;
  client: string;
  broker: string;
  apiKey: number;
  apiName: string;
  version: number;
  flexible: boolean;
  requestHeaderVersion: number;
  responseHeaderVersion: number;
  requestBytes: number;
  responseBytes: number | null;
  notes: string;
}

/** One golden message: where it comes from and its bytes (whole file). */
export interface Golden {
  /** Stable id for messages and exception lists: `<set>/<file>[.request|.response]`. */
  id: string;
  set: 'kafkajs' | 'captures';
  apiKey: number;
  apiName: string;
  direction: Direction;
  version: number;
  /** The file's bytes, exactly as stored. */
  bytes: Buffer;
  /** Offset where the message body starts inside `bytes`. */
  bodyStart: number;
  /** Framing of the bytes in front of the body. */
  framing: 'body-only' | 'hdr-tags+body' | 'request-frame' | 'response-frame';
  /** Header version (captures only): request header 1/2, response header 0/1. */
  headerVersion: number | null;
  notes: string;
  row: KafkajsRow | CaptureRow;
}

export function fixturesAvailable(): boolean {
  return existsSync(join(FIXTURES_DIR, 'kafkajs', 'INDEX.tsv')) && existsSync(join(FIXTURES_DIR, 'captures', 'INDEX.tsv'));
}

function readTsv(path: string): Record<string, string>[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0);
  const head = lines[0].split('\t');
  return lines.slice(1).map((l) => {
    const cells = l.split('\t');
    const row: Record<string, string> = {};
    head.forEach((h, i) => (row[h] = cells[i] ?? ''));
    return row;
  });
}

export function kafkajsRows(): KafkajsRow[] {
  return readTsv(join(FIXTURES_DIR, 'kafkajs', 'INDEX.tsv')).map((r) => ({
    set: 'kafkajs',
    file: r.file,
    apiKey: Number(r.api_key),
    apiName: r.api_name,
    direction: r.direction as Direction,
    version: Number(r.version),
    framing: r.framing as KafkajsRow['framing'],
    byteLength: Number(r.byte_length),
    notes: r.notes,
  }));
}

export function captureRows(): CaptureRow[] {
  return readTsv(join(FIXTURES_DIR, 'captures', 'INDEX.tsv')).map((r) => ({
    set: 'captures',
    file: r.file,
    client: r.client,
    broker: r.broker,
    apiKey: Number(r.api_key),
    apiName: r.api_name,
    version: Number(r.api_version),
    flexible: r.flexible === 'yes',
    requestHeaderVersion: Number(r.request_header_version),
    responseHeaderVersion: Number(r.response_header_version),
    requestBytes: Number(r.request_bytes),
    responseBytes: r.response_bytes === '-' ? null : Number(r.response_bytes),
    notes: r.notes,
  }));
}

export function readKafkajsBytes(file: string): Buffer {
  const json = JSON.parse(readFileSync(join(FIXTURES_DIR, 'kafkajs', file), 'utf8')) as { data: number[] };
  return Buffer.from(json.data);
}

export function readCaptureHex(file: string, direction: Direction): Buffer {
  const text = readFileSync(join(FIXTURES_DIR, 'captures', `${file}.${direction}.hex`), 'utf8').trim();
  return Buffer.from(text, 'hex');
}

/**
 * Every golden message (requests and responses) of both sets, skipping `embedded` kafkajs files.
 * Header offsets are computed from the bytes themselves (client id length, tag sections).
 */
export function loadGoldens(): Golden[] {
  const out: Golden[] = [];
  for (const row of kafkajsRows()) {
    if (row.framing === 'embedded') continue;
    const bytes = readKafkajsBytes(row.file);
    if (bytes.length !== row.byteLength) throw new Error(`${row.file}: ${bytes.length} bytes, INDEX says ${row.byteLength}`);
    let bodyStart = 0;
    if (row.framing === 'hdr-tags+body') {
      if (bytes[0] !== 0) throw new Error(`${row.file}: header tag section is not empty`);
      bodyStart = 1;
    }
    out.push({
      id: `kafkajs/${row.file}`, set: 'kafkajs', apiKey: row.apiKey, apiName: row.apiName, direction: row.direction,
      version: row.version, bytes, bodyStart, framing: row.framing, headerVersion: null, notes: row.notes, row,
    });
  }
  for (const row of captureRows()) {
    const req = readCaptureHex(row.file, 'request');
    if (req.length !== row.requestBytes) throw new Error(`${row.file}: request ${req.length} bytes, INDEX says ${row.requestBytes}`);
    out.push({
      id: `captures/${row.file}.request`, set: 'captures', apiKey: row.apiKey, apiName: row.apiName, direction: 'request',
      version: row.version, bytes: req, bodyStart: -1, framing: 'request-frame', headerVersion: row.requestHeaderVersion, notes: row.notes, row,
    });
    if (row.responseBytes !== null) {
      const res = readCaptureHex(row.file, 'response');
      if (res.length !== row.responseBytes) throw new Error(`${row.file}: response ${res.length} bytes, INDEX says ${row.responseBytes}`);
      out.push({
        id: `captures/${row.file}.response`, set: 'captures', apiKey: row.apiKey, apiName: row.apiName, direction: 'response',
        version: row.version, bytes: res, bodyStart: -1, framing: 'response-frame', headerVersion: row.responseHeaderVersion, notes: row.notes, row,
      });
    }
  }
  return out;
}

/** Parses `key=value` pairs out of a captures notes cell (`client_id=cap-kcat; corr=5; ...`). */
export function noteValue(notes: string, key: string): string | undefined {
  const m = new RegExp(`(?:^|[; ])${key}=([^;\\s]+)`).exec(notes);
  return m ? m[1] : undefined;
}
