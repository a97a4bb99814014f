/**
 * The console's Schema Registry pages and the message browser's "Schema Registry" format, in a
 * real browser (Debian's chromium through playwright-core, as test/http/console.test.ts): Avro,
 * JSON Schema and Protobuf subjects registered through the REST API, records framed in Confluent's
 * wire format produced with kafkajs; the subjects list (latest version, id, type, compatibility
 * with the global fallback), a subject's versions, schema and the diff between two versions
 * (reached by clicking), a subject with '/' in its name, markup in names and schemas shown as
 * text; decoded values (Avro longs past 2^53, Protobuf message indexes into nested messages) and
 * the hex fallback with its reason (not framed, unknown id, undecodable bytes); a broker with
 * the registry disabled. The line diff, the message-index reader and the lazy loading of avsc are
 * tested on their own in console-schema-units.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import protobuf from 'protobufjs';
import kafkajs from 'kafkajs';
import type { Page } from 'playwright-core';
import { launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';

const { Kafka, logLevel } = kafkajs;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'test-output', 'console');
const CT = 'application/vnd.schemaregistry.v1+json';

const ORDER_V1 = { type: 'record', name: 'Order', namespace: 'samsa.test', doc: '<img src=x onerror=alert(1)>', fields: [{ name: 'id', type: 'long' }, { name: 'item', type: 'string' }] };
const ORDER_V2 = { ...ORDER_V1, fields: [...ORDER_V1.fields, { name: 'note', type: ['null', 'string'], default: null }] };
const EVENT_SCHEMA = { type: 'object', properties: { kind: { type: 'string' }, n: { type: 'integer' } } };
const PROTO = `syntax = "proto3";
package samsa.test;

message Address {
  string city = 1;
}

enum Status {
  UNKNOWN = 0;
  SHIPPED = 1;
}

message Shipment {
  message Parcel {
    string label = 1;
  }
  string carrier = 1;
  int64 weight_grams = 2;
  Status status = 3;
  Address to = 4;
  repeated Parcel parcels = 5;
  bytes tag = 6;
}
`;

let b: RunningBroker;
let off: RunningBroker;
let page: Page;
let browser: ConsoleBrowser | undefined;
let dialogs: string[] = [];
const ids: Record<string, number> = {};

async function register(subject: string, schema: string, schemaType: 'AVRO' | 'JSON' | 'PROTOBUF'): Promise<number> {
  const res = await fetch(`${b.httpUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST', headers: { 'content-type': CT }, body: JSON.stringify({ schema, schemaType }),
  });
  const json = await res.json() as { id?: number; message?: string };
  assert.is(res.status, 200, `registering ${subject}: ${JSON.stringify(json)}`);
  return json.id!;
}

function frame(id: number, payload: Buffer | Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(id, 1);
  return Buffer.concat([head, Buffer.from(payload)]);
}

async function html(p: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${b.httpUrl}${p}`);
  return { status: res.status, text: await res.text() };
}

/** A screenshot beside console.test.ts's, in test-output/console/. */
async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
}

async function text(selector: string): Promise<string> {
  return (await page.textContent(selector)) ?? '';
}

/** The Value cells of the message table, in offset order: [label or note line, shown text]. */
async function valueCells(): Promise<{ head: string; body: string }[]> {
  return page.$$eval('#messages tbody tr', (trs) => trs.map((tr) => {
    const td = tr.querySelectorAll('td')[3];
    return { head: td.querySelector('div')?.textContent ?? '', body: td.querySelector('pre')?.textContent ?? '' };
  }));
}

test.before(async () => {
  mkdirSync(OUT, { recursive: true });
  b = await startBroker({ http: true });
  off = await startBroker({ http: true, 'samsa.schema.registry.enable': false });
  browser = await launchConsoleBrowser();
  ({ page, dialogs } = browser);

  ids.orders1 = await register('orders-value', JSON.stringify(ORDER_V1), 'AVRO');
  ids.orders2 = await register('orders-value', JSON.stringify(ORDER_V2), 'AVRO');
  ids.events = await register('events-value', JSON.stringify(EVENT_SCHEMA), 'JSON');
  ids.shipments = await register('shipments-value', PROTO, 'PROTOBUF');
  ids.team = await register('team/a-value', JSON.stringify({ type: 'record', name: 'A', fields: [{ name: 'x', type: 'int' }] }), 'AVRO');
  ids.markup = await register('<b>bold</b>-value', JSON.stringify({ type: 'string' }), 'AVRO');
  const cfg = await fetch(`${b.httpUrl}/config/events-value`, { method: 'PUT', headers: { 'content-type': CT }, body: JSON.stringify({ compatibility: 'NONE' }) });
  assert.is(cfg.status, 200);

  const v1 = avro.Type.forSchema(ORDER_V1 as avro.Schema);
  const v2 = avro.Type.forSchema(ORDER_V2 as avro.Schema);
  // 2^60 as Avro's zigzag varint: avsc's own long type refuses it, so the bytes are written here.
  const bigLong = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
  const bigOrder = Buffer.concat([bigLong, v2.toBuffer({ id: 0, item: 'anvil', note: 'heavy' }).subarray(1)]);
  const root = protobuf.parse(PROTO, { keepCase: true }).root;
  const Shipment = root.lookupType('samsa.test.Shipment');
  const Address = root.lookupType('samsa.test.Address');
  const Parcel = root.lookupType('samsa.test.Shipment.Parcel');
  const shipment = Shipment.encode(Shipment.fromObject({
    carrier: 'DHL', weight_grams: '9007199254740993', status: 1, to: { city: 'Praha' }, parcels: [{ label: 'p1' }, { label: 'p2' }], tag: Buffer.from([1, 2, 3]),
  })).finish();

  const kafka = new Kafka({ clientId: 'console-schemas', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: ['orders', 'events', 'shipments'].map((topic) => ({ topic, numPartitions: 1 })), waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [
    { key: 'k1', value: frame(ids.orders1, v1.toBuffer({ id: 42, item: 'book' })) },
    { key: frame(ids.markup, avro.Type.forSchema('string').toBuffer('key-7')), value: frame(ids.orders2, bigOrder) },
    { value: 'plain text' },
    { value: frame(9999, Buffer.from([2, 4])) },
    { value: frame(ids.orders1, Buffer.from([0x80])) },
  ] });
  await producer.send({ topic: 'events', messages: [{ value: frame(ids.events, Buffer.from('{"kind":"<i>click</i>","n":3}')) }] });
  await producer.send({ topic: 'shipments', messages: [
    { value: frame(ids.shipments, Buffer.concat([Buffer.from([2, 2]), shipment])) },
    { value: frame(ids.shipments, Buffer.concat([Buffer.from([0]), Address.encode(Address.fromObject({ city: 'Brno' })).finish()])) },
    { value: frame(ids.shipments, Buffer.concat([Buffer.from([4, 2, 0]), Parcel.encode(Parcel.fromObject({ label: 'nested' })).finish()])) },
    { value: frame(ids.shipments, Buffer.concat([Buffer.from([2, 8]), shipment])) },
  ] });
  await producer.disconnect();
});

test.after(async () => {
  await browser?.close();
  await b?.stop();
  await off?.stop();
});

test('subjects page: every subject with latest version, id, type, compatibility (global as the fallback)', async () => {
  await page.goto(`${b.httpUrl}/schema-registry`);
  assert.is(await text('header nav a.on'), 'Schemas');
  assert.is(await text('#global-compatibility'), 'BACKWARD');
  const rows = await page.$$eval('#subjects tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')));
  const row = (s: string) => rows.find((r) => r[0] === s);
  assert.equal(row('orders-value')?.slice(0, 6), ['orders-value', '2', String(ids.orders2), 'AVRO', 'BACKWARD (global)', 'orders']);
  assert.equal(row('events-value')?.slice(0, 5), ['events-value', '1', String(ids.events), 'JSON', 'NONE']);
  assert.equal(row('shipments-value')?.slice(0, 4), ['shipments-value', '1', String(ids.shipments), 'PROTOBUF']);
  assert.equal(row('team/a-value')?.slice(0, 4), ['team/a-value', '1', String(ids.team), 'AVRO']);
  assert.ok(row('<b>bold</b>-value'), 'a name with markup is listed as text');
  assert.is(await page.locator('#subjects b').count(), 0, 'no element came from a subject name');
  assert.is(rows.length, 5);
  await shot('schemas');
});

test('subject page by clicking: versions, the latest schema pretty-printed, a version, the diff with the added field', async () => {
  await page.goto(`${b.httpUrl}/schema-registry`);
  await Promise.all([page.waitForURL(/\/schema-registry\/orders-value$/), page.click('#subjects >> text=orders-value')]);
  assert.is(await text('h1'), 'Subject orders-value');
  assert.match(await text('#subject-compatibility'), /^BACKWARD\s*\(global\)$/);
  const versions = await page.$$eval('#versions tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent?.trim() ?? '')));
  assert.equal(versions, [['1', String(ids.orders1), 'AVRO'], ['2 (shown)', String(ids.orders2), 'AVRO']]);
  const latest = await text('#schema-text');
  assert.equal(JSON.parse(latest), ORDER_V2, 'the schema as registered');
  assert.match(latest, /\n {6}"name": "note",\n/, 'pretty-printed');
  assert.match(latest, /<img src=x onerror=alert\(1\)>/, 'markup in the schema shown as text');
  await Promise.all([page.waitForURL(/version=1$/), page.click('#versions >> a:text-is("1")')]);
  assert.not.match(await text('#schema-text'), /note/);
  assert.match(await text('#schema-title'), new RegExp(`Version 1 · id ${ids.orders1} · AVRO`));
  await Promise.all([page.waitForURL(/from=1&to=2/), page.click('#versions >> text=diff v1 → v2')]);
  assert.match(await text('#diff-title'), /Diff v1 → v2/);
  const added = await page.$$eval('#schema-diff ins.diff-add', (els) => els.map((e) => e.textContent ?? ''));
  const removed = await page.$$eval('#schema-diff del.diff-del', (els) => els.map((e) => e.textContent ?? ''));
  assert.ok(added.some((l) => /^\+ {7}"name": "note",$/.test(l)), `the new field is added: ${JSON.stringify(added)}`);
  assert.ok(added.some((l) => /"default": null/.test(l)));
  assert.ok(removed.every((l) => !/"(id|item)"/.test(l)), `the old fields are kept: ${JSON.stringify(removed)}`);
  assert.ok(await page.locator('#schema-diff .diff-same').count() > 5, 'unchanged lines shown');
  assert.match(await text('#diff-summary'), new RegExp(`id ${ids.orders1} → id ${ids.orders2} · \\+${added.length} −${removed.length} lines`));
  assert.equal(dialogs, [], 'no script from a schema ran');
  await shot('schema-diff');
});

test('a subject with / in its name, an unknown subject or version, a bad diff', async () => {
  await page.goto(`${b.httpUrl}/schema-registry`);
  await Promise.all([page.waitForURL(/\/schema-registry\/team%2Fa-value$/), page.click('#subjects >> text=team/a-value')]);
  assert.is(await text('h1'), 'Subject team/a-value');
  assert.match(await text('#schema-text'), /"name": "x"/);
  const raw = await html('/schema-registry/team/a-value');
  assert.is(raw.status, 200);
  assert.match(raw.text, /<h1>Subject team\/a-value<\/h1>/);
  assert.is((await html('/schema-registry/no-such-subject')).status, 404);
  assert.is((await html('/schema-registry/orders-value?version=7')).status, 404);
  assert.is((await html('/schema-registry/orders-value?version=x')).status, 400);
  assert.is((await html('/schema-registry/orders-value?from=1')).status, 400);
  const same = await html('/schema-registry/orders-value?from=2&to=2');
  assert.ok(same.text.includes('<span class="diff-count-add">+0</span> <span class="diff-count-del">−0</span> lines (the same text)'), 'a version against itself');
  const markup = await html(`/schema-registry/${encodeURIComponent('<b>bold</b>-value')}`);
  assert.is(markup.status, 200);
  assert.match(markup.text, /<h1>Subject &lt;b&gt;bold&lt;\/b&gt;-value<\/h1>/);
});

test('message browser, format Schema Registry: Avro decoded with the schema named; the rest in hex with the reason', async () => {
  await page.goto(`${b.httpUrl}/topics/orders/messages?partition=0&offset=0&format=schema`);
  assert.is(await page.locator('#browse-format option:checked').textContent(), 'Schema Registry');
  const cells = await valueCells();
  assert.is(cells.length, 5);
  assert.is(cells[0].head, `schema id ${ids.orders1} (subject orders-value v1, AVRO)`);
  assert.equal(JSON.parse(cells[0].body), { id: 42, item: 'book' });
  assert.is(cells[1].head, `schema id ${ids.orders2} (subject orders-value v2, AVRO)`);
  assert.equal(JSON.parse(cells[1].body), { id: '1152921504606846976', item: 'anvil', note: 'heavy' }, 'a long past 2^53 as a string');
  assert.is(cells[2].head, 'hex: not in the Schema Registry wire format (magic byte 0, schema id)');
  assert.is(cells[2].body, '70 6c 61 69 6e 20 74 65 78 74');
  assert.is(cells[3].head, 'hex: unknown schema id 9999');
  assert.is(cells[3].body, '00 00 00 27 0f 02 04');
  assert.match(cells[4].head, new RegExp(`^hex: schema id ${ids.orders1} \\(subject orders-value v1, AVRO\\): not decodable: `));
  const keys = await page.$$eval('#messages tbody tr td:nth-child(3)', (tds) => tds.map((td) => td.textContent ?? ''));
  assert.match(keys[0], /^hex: not in the Schema Registry wire format.*6b 31$/);
  assert.is(keys[1], `schema id ${ids.markup} (subject <b>bold</b>-value v1, AVRO)"key-7"`);
  assert.is(keys[2], 'null');
  assert.is(await page.locator('#messages td b').count(), 0, 'no element came from a subject name');
  await shot('messages-schema');
  await page.goto(`${b.httpUrl}/topics/orders/messages?partition=0&offset=0&format=text`);
  assert.is((await valueCells())[2].body, 'plain text', 'the other formats unchanged');
});

test('message browser: JSON Schema and Protobuf (message indexes, nested messages, longs, enums, bytes)', async () => {
  await page.goto(`${b.httpUrl}/topics/events/messages?partition=0&offset=0&format=schema`);
  const events = await valueCells();
  assert.is(events[0].head, `schema id ${ids.events} (subject events-value v1, JSON)`);
  assert.equal(JSON.parse(events[0].body), { kind: '<i>click</i>', n: 3 });
  assert.is(await page.locator('#messages i').count(), 0);
  await page.goto(`${b.httpUrl}/topics/shipments/messages?partition=0&offset=0&format=schema`);
  const s = await valueCells();
  assert.is(s[0].head, `schema id ${ids.shipments} (subject shipments-value v1, PROTOBUF), message samsa.test.Shipment`);
  assert.equal(JSON.parse(s[0].body), {
    carrier: 'DHL', weight_grams: '9007199254740993', status: 'SHIPPED', to: { city: 'Praha' }, parcels: [{ label: 'p1' }, { label: 'p2' }], tag: 'AQID',
  });
  assert.is(s[1].head, `schema id ${ids.shipments} (subject shipments-value v1, PROTOBUF), message samsa.test.Address`);
  assert.equal(JSON.parse(s[1].body), { city: 'Brno' });
  assert.is(s[2].head, `schema id ${ids.shipments} (subject shipments-value v1, PROTOBUF), message samsa.test.Shipment.Parcel`);
  assert.equal(JSON.parse(s[2].body), { label: 'nested' });
  assert.match(s[3].head, /^hex: .*PROTOBUF\): not decodable: no message at index path \[4\]$/);
});

test('choosing the format in the browser form', async () => {
  await page.goto(`${b.httpUrl}/topics/events/messages`);
  await page.selectOption('#browse-format', 'schema');
  await page.fill('#browse-offset', '0');
  await Promise.all([page.waitForURL(/format=schema/), page.click('#browse-submit')]);
  assert.match((await valueCells())[0].head, /subject events-value v1, JSON/);
});

test('the registry disabled: the schemas page says so, framed records stay hex', async () => {
  const res = await fetch(`${off.httpUrl}/schema-registry`);
  assert.is(res.status, 200);
  assert.match(await res.text(), /<p class="empty" id="registry-disabled">The Schema Registry is disabled on this broker/);
  const kafka = new Kafka({ clientId: 'console-schemas-off', brokers: [off.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  await producer.send({ topic: 'framed', messages: [{ value: frame(1, Buffer.from([2, 4])) }] });
  await producer.disconnect();
  await page.goto(`${off.httpUrl}/topics/framed/messages?partition=0&offset=0&format=schema`);
  const cells = await valueCells();
  assert.equal(cells, [{ head: 'hex: the Schema Registry is disabled on this broker', body: '00 00 00 00 01 02 04' }]);
});

test.run();
