/**
 * The web console in a real browser: Debian's chromium, headless, driven by playwright-core
 * (tools/ensure-test-deps.sh installs it). Creates a topic, changes its config, produces through
 * the page and finds the message (HTML in key, value and header shown as text), watches a kafkajs
 * group's lag fall to zero, resets the group's offsets, shows a confluent-kafka KIP-848 consumer
 * group (group.protocol=consumer) on the groups pages and a confluent-kafka ShareConsumer's share
 * group (members, share-partition start offset, lag, in-flight and archived records) on the share
 * groups pages, checks the live chart draws, and that the read-only pages work without JavaScript. A screenshot of each page goes to
 * test-output/console/ (SAMSA_UPDATE_DOCS_IMAGES=1 also copies them to docs/images/).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';
import type { BrowserContext, Page } from 'playwright-core';
import { launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { startGroup } from '../support/python-groups.js';

const { Kafka, logLevel, CompressionTypes } = kafkajs;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'test-output', 'console');
const TOPIC = 'console-t';
const GROUP = 'console-g';

let b: RunningBroker;
let context: BrowserContext;
let page: Page;
let browser: ConsoleBrowser | undefined;
let dialogs: string[] = [];

async function shot(name: string): Promise<void> {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.SAMSA_UPDATE_DOCS_IMAGES === '1') copyFileSync(file, path.join(ROOT, 'docs', 'images', `console-${name}.png`));
}

/** Bounds a wait so that a broken page fails the test instead of hanging it. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })]).finally(() => clearTimeout(timer));
}

async function text(selector: string): Promise<string> {
  return (await page.textContent(selector)) ?? '';
}

/** Reloads until `selector`'s text satisfies `ok` (the page shows the state at load time). */
async function reloadUntil(selector: string, ok: (t: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 150; i++) {
    const t = await text(selector);
    if (ok(t)) return t;
    await new Promise((r) => setTimeout(r, 100));
    await page.reload();
  }
  throw new Error(`${what}: last seen ${JSON.stringify(await text(selector))}`);
}

test.before(async () => {
  mkdirSync(OUT, { recursive: true });
  b = await startBroker({ http: true, 'offsets.topic.num.partitions': 1, 'group.initial.rebalance.delay.ms': 0, 'group.share.assignment.interval.ms': 0 });
  browser = await launchConsoleBrowser();
  ({ context, page, dialogs } = browser);
});

test.after(async () => {
  await browser?.close();
  await b?.stop();
});

test('cluster page: cluster id, this broker, the controller', async () => {
  await page.goto(`${b.httpUrl}/`);
  assert.is(await text('#cluster-id'), b.broker.metadataCache.clusterId);
  assert.match(await text('#brokers'), /this broker/);
  assert.match(await text('#brokers'), /active controller/);
  await shot('cluster');
});

test('create a topic through the form, then change its config', async () => {
  await page.goto(`${b.httpUrl}/topics`);
  await page.fill('#create-name', TOPIC);
  await page.fill('#create-partitions', '2');
  await Promise.all([page.waitForURL(/\/topics\/console-t/), page.click('#create-submit')]);
  assert.match(await text('h1'), /Topic console-t/);
  assert.is(b.broker.metadataCache.topic(TOPIC)?.partitions, 2);
  assert.is(await page.locator('#partitions tbody tr').count(), 2);
  await page.fill('#config-overrides', 'retention.ms=3600000');
  await Promise.all([page.waitForURL(/notice=/), page.click('#config-submit')]);
  assert.is(b.broker.metadataCache.topic(TOPIC)?.configs['retention.ms'], '3600000');
  assert.match(await text('#configs'), /retention\.ms\s*3600000\s*override/);
  await shot('topic');
  await page.goto(`${b.httpUrl}/topics`);
  await page.fill('#create-name', 'console-doomed');
  await Promise.all([page.waitForURL(/\/topics\/console-doomed/), page.click('#create-submit')]);
  await page.fill('#delete-confirm', 'wrong name');
  await Promise.all([page.waitForURL(/error=/), page.click('#delete-submit')]);
  assert.ok(b.broker.metadataCache.topic('console-doomed'), 'a wrong confirmation deletes nothing');
  await page.fill('#delete-confirm', 'console-doomed');
  await Promise.all([page.waitForURL(/\/topics\?notice=/), page.click('#delete-submit')]);
  assert.is(b.broker.metadataCache.topic('console-doomed'), undefined);
  assert.match(await text('.notice'), /Topic console-doomed deleted/);
  assert.match(await text('#topics'), /console-t/);
  assert.not.match(await text('#topics'), /console-doomed/);
  await shot('topics');
});

test('produce through the page and find the message; HTML in it is shown as text', async () => {
  await page.goto(`${b.httpUrl}/topics/${TOPIC}/messages`);
  await page.selectOption('#produce-partition', '1');
  await page.fill('#produce-key', '<b>key</b>');
  await page.fill('#produce-value', '{"hello":"<img src=x onerror=alert(1)>"}');
  await page.fill('#produce-headers', 'trace=<script>alert(2)</script>');
  await Promise.all([page.waitForURL(/offset=0/), page.click('#produce-submit')]);
  assert.match(await text('.notice'), /Produced at offset 0 of partition 1/);
  const row = page.locator('#messages tbody tr').first();
  assert.match((await row.textContent()) ?? '', /<b>key<\/b>/);
  assert.match((await row.textContent()) ?? '', /<img src=x onerror=alert\(1\)>/);
  assert.match((await row.textContent()) ?? '', /trace: <script>alert\(2\)<\/script>/);
  assert.is(await page.locator('#messages img, #messages b:not(pre > b), #messages script').count(), 0, 'no element came from the message');
  await page.goto(`${b.httpUrl}/topics/${TOPIC}/messages?partition=1&offset=0&format=json`);
  assert.match(await text('#messages'), /"hello": "<img src=x onerror=alert\(1\)>"/);
  await page.goto(`${b.httpUrl}/topics/${TOPIC}/messages?partition=1&offset=0&format=hex`);
  assert.match(await text('#messages'), /3c 62 3e 6b 65 79 3c 2f 62 3e/, 'the key in hex');
  await page.goto(`${b.httpUrl}/topics/${TOPIC}/messages?partition=1&timestamp=${Date.now() - 60_000}`);
  assert.is(await page.locator('#messages tbody tr').count(), 1, 'found by timestamp');
  assert.equal(dialogs, [], 'no script from a message ran');
  const producer = new Kafka({ clientId: 'console-gzip', brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, compression: CompressionTypes.GZIP, messages: [{ key: 'z1', value: 'zipped-one', partition: 0 }, { key: 'z2', value: '{"zipped":2}', partition: 0, headers: { h: 'v' } }] });
  await producer.disconnect();
  await page.goto(`${b.httpUrl}/topics/${TOPIC}/messages?partition=0&offset=0&format=json`);
  assert.is(await page.locator('#messages tbody tr').count(), 2, 'both records of the gzip batch');
  assert.match(await text('#messages'), /zipped-one\s*\(not JSON\)/);
  assert.match(await text('#messages'), /"zipped": 2/);
  await shot('messages');
});

test('a kafkajs group: lag shown, falling to zero; reset to earliest once it is empty', async () => {
  const kafka = new Kafka({ clientId: 'console-test', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${i}`, partition: i % 2 })) });
  const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 300 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  let seen = 0;
  let release!: () => void;
  const firstBatch = new Promise<void>((r) => { release = r; });
  await consumer.run({ autoCommitThreshold: 1, eachMessage: async () => { if (++seen === 11) release(); } });
  await within(firstBatch, 30_000, 'the group consumes the 11 records');
  await page.goto(`${b.httpUrl}/groups/${GROUP}`);
  await reloadUntil('#group-lag', (t) => t === '0', 'lag falls to zero while the group consumes');
  consumer.pause([{ topic: TOPIC }]);
  await producer.send({ topic: TOPIC, messages: Array.from({ length: 6 }, (_, i) => ({ value: `late${i}`, partition: i % 2 })) });
  await reloadUntil('#group-lag', (t) => t === '6', 'the paused group lags by the 6 new records');
  assert.is(await text('#group-state'), 'Stable');
  assert.match(await text('#members'), /console-t: 0, 1/, 'the member\'s assignment is shown');
  await shot('group');
  consumer.resume([{ topic: TOPIC }]);
  await reloadUntil('#group-lag', (t) => t === '0', 'lag falls to zero once the group consumes again');
  await consumer.disconnect();
  await reloadUntil('#group-state', (t) => t === 'Empty', 'the group is empty after the consumer left');
  await page.check('#reset-earliest');
  await Promise.all([page.waitForURL(/notice=/), page.click('#reset-submit')]);
  assert.match(await text('.notice'), /Reset 2 partition\(s\)/);
  const hw = (p: number) => b.broker.getLog(TOPIC, p)!.highWatermark;
  assert.is(await text('#group-lag'), String(hw(0) + hw(1)), 'after the reset the lag is everything in the topic');
  const committed = await page.locator('#lag .committed').allTextContents();
  assert.equal(committed, ['0', '0']);
  await page.check('#reset-latest');
  await Promise.all([page.waitForURL(/notice=/), page.click('#reset-submit')]);
  assert.is(await text('#group-lag'), '0');
  await page.goto(`${b.httpUrl}/groups`);
  assert.match(await text('#groups'), /console-g\s*classic\s*Empty/);
  await shot('groups');
  await producer.disconnect();
});

test('a KIP-848 consumer group on the groups pages: type, members with their epochs and assignments, lag', async () => {
  const g = await startGroup(b.bootstrap, 'consumer', 'console-cg', 'console-cg-t', { members: 2, records: 10 });
  try {
    const stable = await b.control.waitForGroupStable('console-cg', { timeoutMs: 20_000 });
    await page.goto(`${b.httpUrl}/groups`);
    assert.match(await text('#groups'), /console-cg\s*consumer\s*Stable\s*consumer\s*\d\s*2\s*0/);
    await page.goto(`${b.httpUrl}/groups/console-cg`);
    assert.is(await text('#group-state'), 'Stable');
    assert.is(await text('#group-type'), 'consumer');
    assert.is(await text('#group-epoch'), String(stable.groupEpoch));
    const rows = page.locator('#members tbody tr');
    assert.is(await rows.count(), stable.members.length);
    for (const m of stable.members) {
      const row = rows.filter({ hasText: m.memberId });
      const t = (await row.textContent()) ?? '';
      assert.ok(t.includes(m.clientId), `member ${m.memberId} with its client id: ${t}`);
      assert.is(await row.locator('.member-epoch').textContent(), String(m.memberEpoch));
      for (const a of m.assignment!) assert.ok(t.includes(`${a.topic}: ${a.partitions.join(', ')}`), `its assignment: ${t}`);
    }
    assert.equal(await page.locator('#lag .committed').allTextContents(), ['5', '5'], 'both partitions committed');
    assert.is(await text('#group-lag'), '0');
  } finally {
    g.stop();
  }
});

test('a confluent-kafka share group: listed with its members; its page shows members, assignment and share-partition counts', async () => {
  const g = await startGroup(b.bootstrap, 'share', 'console-sg', 'console-sg-t', { records: 6 });
  try {
    const acquired: number[] = g.line.acquired;
    assert.equal(acquired, [0, 1, 2, 3, 4, 5], 'the one batch acquired whole');
    await b.control.waitForGroupStable('console-sg', { timeoutMs: 20_000 });
    await page.goto(`${b.httpUrl}/share-groups`);
    assert.match(await text('#share-groups'), /console-sg\s*Stable\s*1\s*1\s*4/);
    await shot('share-groups');
    await page.goto(`${b.httpUrl}/groups`);
    assert.not.match(await text('#groups'), /console-sg/, 'share groups are not on the consumer groups page');
    await page.goto(`${b.httpUrl}/groups/console-sg`);
    assert.match(page.url(), /\/share-groups\/console-sg$/, 'a share group under /groups goes to its own page');
    await page.goto(`${b.httpUrl}/share-groups`);
    await page.click('#share-groups a >> text=console-sg');
    assert.is(await text('#share-group-state'), 'Stable');
    const members = await page.locator('#share-members tbody tr').allTextContents();
    assert.is(members.length, 1);
    assert.match(members[0], /console-sg-0/);
    assert.match(members[0], /console-sg-t: 0/);
    // Offsets 0-5 acquired; 1 rejected (archived), 2 accepted: the start offset stays 0, four are in flight.
    const cells = async (cls: string) => page.locator(`#share-partitions .${cls}`).allTextContents();
    assert.equal(await cells('start'), ['0']);
    assert.equal(await cells('lag'), ['4']);
    assert.equal(await cells('in-flight'), ['4']);
    assert.equal(await cells('archived'), ['1']);
    assert.is(await text('#share-group-lag'), '4');
    await shot('share-group');
    const missing = await page.goto(`${b.httpUrl}/share-groups/no-such-group`);
    assert.is(missing?.status(), 404);
  } finally {
    g.stop();
  }
});

test('the live chart draws samples', async () => {
  await page.goto(`${b.httpUrl}/`);
  await page.waitForSelector('svg.chart[data-samples="2"]', { timeout: 15_000 });
  const points = await page.getAttribute('svg.chart polyline.in', 'points');
  assert.ok(points && points.split(' ').length === 2, `two points drawn: ${points}`);
  const producer = new Kafka({ clientId: 'console-chart', brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, messages: Array.from({ length: 200 }, (_, i) => ({ value: `chart${i}` })) });
  await producer.disconnect();
  await page.waitForSelector('svg.chart[data-samples="4"]', { timeout: 15_000 });
  assert.match(await text('.live-figures'), /lag \d+/);
  const heights = ((await page.getAttribute('svg.chart polyline.in', 'points')) ?? '').split(' ').map((xy) => Number(xy.split(',')[1]));
  assert.ok(Math.min(...heights) < Math.max(...heights), `the records-in line rises with the 200 records: ${heights}`);
  await shot('cluster');
});

test('a group id and a config value full of HTML are shown as text', async () => {
  const evil = '"><img src=x onerror=alert(7)><script>alert(8)</script>';
  const committed = await b.broker.groupCoordinator.commitOffsets({
    groupId: evil, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
    topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  }, 8);
  assert.is(committed[0].partitions[0].errorCode, 0);
  await page.goto(`${b.httpUrl}/groups`);
  assert.ok((await text('#groups')).includes(evil), 'the id is shown verbatim as text');
  await page.click(`#groups a >> text=${evil}`);
  assert.ok((await text('h1')).includes(evil));
  assert.is(await page.locator('main img').count(), 0);
  assert.is(await page.locator('main script').count(), 0);
  await b.broker.setTopicConfigs(TOPIC, { 'retention.ms': '3600000' });
  await page.goto(`${b.httpUrl}/topics/${TOPIC}`);
  await page.fill('#config-overrides', 'retention.ms=<b>bold</b>');
  await Promise.all([page.waitForURL(/error=/), page.click('#config-submit')]);
  assert.match(await text('.error'), /<b>bold<\/b>/, 'the refused value is quoted as text in the error');
  assert.is(await page.locator('.error b').count(), 0);
  assert.equal(dialogs, []);
});

test('read-only pages work without JavaScript; forged and traversal URLs do not break the page', async () => {
  const noJs = await context.browser()?.newContext({ javaScriptEnabled: false }) ?? null;
  const p = noJs ? await noJs.newPage() : await context.newPage();
  try {
    if (noJs === null) await p.route('**/*.js', (r) => r.abort());
    await p.goto(`${b.httpUrl}/topics/${TOPIC}`);
    assert.is(await p.locator('#partitions tbody tr').count(), 2);
    await p.goto(`${b.httpUrl}/groups/${GROUP}`);
    assert.match((await p.textContent('#lag')) ?? '', /console-t/);
    const res = await p.goto(`${b.httpUrl}/topics/${encodeURIComponent('<script>alert(3)</script>')}`);
    assert.is(res?.status(), 404);
    assert.is(await p.locator('script').count(), 0);
  } finally {
    await p.close();
    await noJs?.close();
  }
  assert.equal(dialogs, []);
});

test.run();
