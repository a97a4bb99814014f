/**
 * `/topics/<name>/messages`: the message browser (a partition from an offset, or from the first
 * offset at or after a time; keys, values and headers as text, JSON or hex, or keys and values in
 * the Schema Registry's wire format decoded with their schema, schema-decode.ts) and a form that
 * produces a test message. Reads go to the partition log directly (below the high watermark, as
 * a read_uncommitted consumer sees them); producing goes through the broker's own Produce
 * handler in-process, so validation, replication (acks=all) and the metrics apply as for any
 * client.
 */
import type { HttpContext } from '../context.js';
import { BadRequest } from '../context.js';
import { redirect, sendHtml } from '../respond.js';
import { esc, form, page, pathFor, query, table } from './layout.js';
import { buildRecordBatch, decodeRecordBatches, type DecodedRecord } from '../../protocol/records/record.js';
import { sendInProcess } from '../in-process.js';
import { ErrorCode, errorName } from '../../protocol/generated/error-codes.js';
import { SchemaDecoder } from './schema-decode.js';

const MAX_READ_BYTES = 1024 * 1024;
const MAX_LIMIT = 200;
const MAX_SHOWN_BYTES = 4096;
export type ValueFormat = 'text' | 'json' | 'hex' | 'schema';
const FORMATS: readonly [ValueFormat, string][] = [['text', 'text'], ['json', 'json'], ['hex', 'hex'], ['schema', 'Schema Registry']];

/** A key, value or header value as the chosen format shows it (escaped by the caller; 'schema' shows text here). */
export function formatBytesAs(buf: Buffer | null, fmt: ValueFormat): string {
  if (buf === null) return 'null';
  const cut = buf.length > MAX_SHOWN_BYTES ? buf.subarray(0, MAX_SHOWN_BYTES) : buf;
  const more = buf.length > MAX_SHOWN_BYTES ? ` … (${buf.length} bytes)` : '';
  if (fmt === 'hex') return cut.toString('hex').replace(/(..)(?!$)/g, '$1 ') + more;
  const text = cut.toString('utf8');
  if (fmt === 'json') {
    try {
      return JSON.stringify(JSON.parse(buf.toString('utf8')), null, 2);
    } catch {
      return `${text}${more}  (not JSON)`;
    }
  }
  return text + more;
}

/**
 * A key or value cell: with the 'schema' format a framed record decoded (under the line naming its
 * schema), anything else in hex under a note saying why it was not decoded.
 */
async function cell(buf: Buffer | null, fmt: ValueFormat, decoder: SchemaDecoder, cls: string): Promise<string> {
  const attr = cls ? ` class="${cls}"` : '';
  if (fmt !== 'schema' || buf === null) return `<pre${attr}>${esc(formatBytesAs(buf, fmt))}</pre>`;
  const d = await decoder.decode(buf);
  if (d.ok) return `<div class="muted schema-label">${esc(d.label)}</div><pre${attr}>${esc(d.text)}</pre>`;
  return `<div class="muted schema-note">hex: ${esc(d.reason)}</div><pre${attr}>${esc(formatBytesAs(buf, 'hex'))}</pre>`;
}

interface Found {
  offset: number;
  timestamp: number;
  record: DecodedRecord;
}

async function readRecords(ctx: HttpContext, topic: string, partition: number, from: number, limit: number): Promise<Found[]> {
  const log = ctx.broker.getLog(topic, partition);
  if (!log) throw new BadRequest(404, `partition ${partition} of ${topic} is not on this broker`);
  const out: Found[] = [];
  let next = Math.max(from, log.logStartOffset);
  const end = log.highWatermark;
  while (out.length < limit && next < end) {
    const read = await log.read(next, MAX_READ_BYTES, { minOneMessage: true, maxOffset: end });
    if (read.records.length === 0) break;
    const before = next;
    for (const batch of decodeRecordBatches(Buffer.concat(read.records))) {
      const last = Number(batch.baseOffset) + batch.lastOffsetDelta;
      if (!batch.isControl) {
        for (const r of batch.records) {
          const o = Number(r.offset);
          if (o < next || o >= end || out.length >= limit) continue;
          out.push({ offset: o, timestamp: Number(r.timestamp), record: r });
        }
      }
      next = Math.max(next, last + 1);
    }
    if (next === before) break;
  }
  return out;
}

export async function messagesPage(ctx: HttpContext, topic: string): Promise<void> {
  const b = ctx.broker;
  const info = b.metadataCache.topic(topic);
  if (!info) throw new BadRequest(404, `no topic ${topic}`);
  const q = ctx.query;
  const partition = Math.min(Math.max(0, Number(q.get('partition') ?? 0) | 0), info.partitions - 1);
  const fmt: ValueFormat = FORMATS.find(([f]) => f === q.get('format'))?.[0] ?? 'text';
  const limit = Math.min(MAX_LIMIT, Math.max(1, Number(q.get('limit') ?? 50) | 0));
  const log = b.getLog(topic, partition);
  const tsText = q.get('timestamp') ?? '';
  const offsetText = q.get('offset') ?? '';
  let from = log ? Math.max(log.logStartOffset, log.highWatermark - limit) : 0;
  let note = '';
  if (/^\d+$/.test(offsetText)) from = Number(offsetText);
  if (log && tsText !== '') {
    const ms = /^\d+$/.test(tsText) ? Number(tsText) : Date.parse(tsText);
    if (Number.isNaN(ms)) throw new BadRequest(400, 'timestamp: milliseconds since the epoch, or an ISO date');
    const hit = await log.offsetForTimestamp(ms);
    from = hit ? hit.offset : log.highWatermark;
    note = `First offset at or after ${new Date(ms).toISOString()}: ${from}.`;
  }
  const found = log ? await readRecords(ctx, topic, partition, from, limit) : [];
  const decoder = new SchemaDecoder(b.schemaRegistry);
  const rows: string[][] = [];
  for (const f of found) {
    rows.push([
      `<span class="num">${esc(f.offset)}</span>`,
      `<span class="mono">${esc(new Date(f.timestamp).toISOString())}</span>`,
      await cell(f.record.key, fmt, decoder, 'k'),
      await cell(f.record.value, fmt, decoder, ''),
      f.record.headers.map((h) => `<pre><b>${esc(h.key)}</b>: ${esc(formatBytesAs(h.value, fmt))}</pre>`).join(''),
    ]);
  }
  const partitionOptions = Array.from({ length: info.partitions }, (_, i) => `<option value="${i}"${i === partition ? ' selected' : ''}>${i}</option>`).join('');
  const formatOptions = FORMATS.map(([f, label]) => `<option value="${esc(f)}"${f === fmt ? ' selected' : ''}>${esc(label)}</option>`).join('');
  const search = `<form method="get" action="${esc(pathFor('topics', topic, 'messages'))}" id="browse"><fieldset><legend>Find messages</legend>`
    + `<label>Partition <select name="partition" id="browse-partition">${partitionOptions}</select></label> `
    + `<label>From offset <input name="offset" id="browse-offset" type="number" min="0" style="width:9em" value="${esc(q.get('offset') ?? '')}"></label> `
    + `<label>or time <input name="timestamp" id="browse-timestamp" placeholder="2026-01-01T00:00:00Z or ms" value="${esc(tsText)}"></label> `
    + `<label>Show as <select name="format" id="browse-format">${formatOptions}</select></label> `
    + `<label>Limit <input name="limit" type="number" min="1" max="${MAX_LIMIT}" value="${esc(limit)}" style="width:5em"></label> `
    + `<button type="submit" id="browse-submit">Show</button></fieldset></form>`;
  const produce = form(ctx, pathFor('topics', topic, 'produce'), `<fieldset><legend>Produce a test message</legend>`
    + `<label>Partition <select name="partition" id="produce-partition">${partitionOptions}</select></label> `
    + `<label>Key <input name="key" id="produce-key" placeholder="(null)"></label><br>`
    + `<label>Value<br><textarea name="value" id="produce-value" rows="3"></textarea></label><br>`
    + `<label>Headers (one <code>name=value</code> a line)<br><textarea name="headers" id="produce-headers" rows="2"></textarea></label><br>`
    + `<button type="submit" id="produce-submit">Produce</button></fieldset>`, { id: 'produce' });
  const where = log ? `Partition ${partition}: log start ${log.logStartOffset}, high watermark ${log.highWatermark}.` : `Partition ${partition} is not on this broker.`;
  const body = `<p><a href="${esc(pathFor('topics', topic))}">← ${esc(topic)}</a> · ${esc(where)} ${esc(note)}</p>${search}`
    + table(['Offset', 'Timestamp', 'Key', 'Value', 'Headers'], rows, { id: 'messages', empty: 'No messages in this range.' }) + produce;
  sendHtml(ctx.res, 200, page(ctx, `Messages in ${topic}`, body, { section: '/topics' }));
}

/** Sends one Produce request (acks=all) through the broker's request path, as a client would. */
async function produceInProcess(ctx: HttpContext, topic: string, partition: number, records: Buffer): Promise<{ errorCode: number; baseOffset: number; message: string | null }> {
  const res = await sendInProcess(ctx.broker, 0, 9, {
    transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  }, { user: ctx.user, clientId: 'samsa-console' });
  const p = res.responses[0]?.partitionResponses[0];
  if (!p) throw new Error('the produce answer names no partition');
  return { errorCode: p.errorCode, baseOffset: Number(p.baseOffset), message: p.errorMessage };
}

export async function producePost(ctx: HttpContext, topic: string): Promise<void> {
  const f = ctx.form!;
  const info = ctx.broker.metadataCache.topic(topic);
  if (!info) throw new BadRequest(404, `no topic ${topic}`);
  const partition = Number(f.get('partition') ?? 0) | 0;
  const back = (params: Record<string, string | number>) => redirect(ctx.res, pathFor('topics', topic, 'messages') + query({ partition, ...params }));
  const key = f.get('key') ?? '';
  const headers: { key: string; value: Buffer | null }[] = [];
  for (const line of (f.get('headers') ?? '').split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    headers.push(eq < 0 ? { key: line.trim(), value: null } : { key: line.slice(0, eq).trim(), value: Buffer.from(line.slice(eq + 1), 'utf8') });
  }
  const batch = buildRecordBatch({ records: [{ key: key === '' ? null : Buffer.from(key, 'utf8'), value: Buffer.from(f.get('value') ?? '', 'utf8'), headers }] });
  const r = await produceInProcess(ctx, topic, partition, batch);
  if (r.errorCode !== ErrorCode.NONE) return back({ error: `Produce failed: ${errorName(r.errorCode)}${r.message ? ` (${r.message})` : ''}` });
  back({ offset: r.baseOffset, notice: `Produced at offset ${r.baseOffset} of partition ${partition}.` });
}
