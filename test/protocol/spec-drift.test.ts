/**
 * protocol-specs/ against the upstream Kafka schemas (the pinned Kafka release's jar, tools/codegen/paths.ts),
 * protocol-specs/errors.json against errors.tsv, apis.json against the message specs, and
 * src/protocol/generated/ against a fresh run of the generator (stale generated code fails).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAll } from '../../tools/codegen/main.js';
import { GENERATED_DIR, SPEC_DIR, UPSTREAM_DIR } from '../../tools/codegen/paths.js';
import { kafkaSchemasDir, upstreamPathFor } from '../../tools/codegen/upstream-paths.js';
import { applyOverrides } from '../../tools/codegen/overrides.js';
import { KAFKA_VERSION } from '../../tools/kafka/kafka.js';
import { readUpstream } from '../../tools/codegen/upstream.js';
import { apiCodecs } from '../../src/protocol/generated/api-table.js';
import { advertisedApis } from '../../src/protocol/generated/advertised.js';
import { ErrorCode, errorName, isRetriable } from '../../src/protocol/generated/error-codes.js';

const MESSAGES_DIR = join(SPEC_DIR, 'messages');
const schemasDir = kafkaSchemasDir();
const specFiles = readdirSync(MESSAGES_DIR).filter((f) => f.endsWith('.json')).sort();
const readSpec = (file: string) => JSON.parse(readFileSync(join(MESSAGES_DIR, file), 'utf8'));

/**
 * Internal records ahead of the shared snapshot (which predates Kafka 4.0), with the Kafka 4.4.0
 * facts they follow (read from the 4.4.0 share-coordinator and group-coordinator jars). Wire
 * messages are compared with the 4.4.0 kafka-clients jar itself (tools/codegen/paths.ts).
 */
const AHEAD_OF_SNAPSHOT: Record<string, string> = {
  ShareSnapshotValue: 'Kafka 4.4: SnapshotEpoch int32, CreateTimestamp, WriteTimestamp, tagged DeliveryCompleteCount',
  ShareUpdateValue: 'Kafka 4.4: SnapshotEpoch int32, tagged DeliveryCompleteCount',
  ShareGroupMetadataValue: 'Kafka 4.4: MetadataHash int64',
  ShareGroupTargetAssignmentMetadataValue: 'Kafka 4.4: tagged AssignmentTimestamp',
  ShareGroupStatePartitionMetadataValue: 'Kafka 4.4: InitializingTopics',
  StreamsGroupMetadataKey: 'Kafka 4.4 streams group record (KIP-1071), key type 17',
  StreamsGroupMetadataValue: 'Kafka 4.4 streams group record (KIP-1071), key type 17',
  StreamsGroupMemberMetadataKey: 'Kafka 4.4 streams group record (KIP-1071), key type 19',
  StreamsGroupMemberMetadataValue: 'Kafka 4.4 streams group record (KIP-1071), key type 19',
  StreamsGroupTargetAssignmentMetadataKey: 'Kafka 4.4 streams group record (KIP-1071), key type 20',
  StreamsGroupTargetAssignmentMetadataValue: 'Kafka 4.4 streams group record (KIP-1071), key type 20',
  StreamsGroupTargetAssignmentMemberKey: 'Kafka 4.4 streams group record (KIP-1071), key type 21',
  StreamsGroupTargetAssignmentMemberValue: 'Kafka 4.4 streams group record (KIP-1071), key type 21',
  StreamsGroupCurrentMemberAssignmentKey: 'Kafka 4.4 streams group record (KIP-1071), key type 22',
  StreamsGroupCurrentMemberAssignmentValue: 'Kafka 4.4 streams group record (KIP-1071), key type 22',
  StreamsGroupTopologyKey: 'Kafka 4.4 streams group record (KIP-1071), key type 23',
  StreamsGroupTopologyValue: 'Kafka 4.4 streams group record (KIP-1071), key type 23',
};

function range(s: string): [number, number] {
  if (s === 'none') return [1, 0];
  if (s.endsWith('+')) return [Number(s.slice(0, -1)), Infinity];
  const [a, b] = s.split('-');
  return [Number(a), Number(b ?? a)];
}

test('protocol-specs/messages/*.json == reduceMessage(upstream) for every file', () => {
  if (schemasDir === null) {
    console.log(`spec-drift: the Kafka ${KAFKA_VERSION} kafka-clients jar is not in the cache (tools/ensure-kafka.sh), drift check skipped`);
    return;
  }
  const drift: string[] = [];
  for (const file of specFiles) {
    const name = file.replace(/\.json$/, '');
    if (AHEAD_OF_SNAPSHOT[name]) continue;
    const src = upstreamPathFor(name);
    if (!src) {
      drift.push(`${name}: no upstream schema`);
      continue;
    }
    try {
      assert.equal(readSpec(file), applyOverrides(name, readUpstream(src)));
    } catch {
      drift.push(`${name}: differs from ${src} (re-run tools/codegen/transcribe.ts ${name})`);
    }
  }
  assert.equal(drift, [], drift.join('\n'));
  console.log(`spec-drift: ${specFiles.length} message specs match Kafka ${KAFKA_VERSION} (and the snapshot's internal records)`);
});

test('every spec file is named after its message, request/response pairs share api key and versions', () => {
  const byKey = new Map<number, { request?: any; response?: any }>();
  for (const file of specFiles) {
    const s = readSpec(file);
    assert.is(`${s.name}.json`, file);
    if (s.type === 'request' || s.type === 'response') {
      const e = byKey.get(s.apiKey) ?? {};
      e[s.type as 'request' | 'response'] = s;
      byKey.set(s.apiKey, e);
    }
  }
  for (const [key, e] of byKey) {
    assert.ok(e.request && e.response, `api key ${key}: request and response`);
    assert.is(e.request.validVersions, e.response.validVersions, `api key ${key} validVersions`);
    assert.is(e.request.flexibleVersions, e.response.flexibleVersions, `api key ${key} flexibleVersions`);
  }
});

test('protocol-specs/errors.json == errors.tsv (code, name, retriable), and error-codes.ts follows', () => {
  const ours = JSON.parse(readFileSync(join(SPEC_DIR, 'errors.json'), 'utf8')) as { code: number; name: string; retriable: boolean }[];
  // the generated module always follows errors.json
  for (const e of ours) {
    assert.is((ErrorCode as Record<string, number>)[e.name], e.code, e.name);
    assert.is(errorName(e.code), e.name);
    assert.is(isRetriable(e.code), e.retriable, `${e.name} retriable`);
  }
  assert.is(new Set(ours.map((e) => e.code)).size, ours.length, 'codes unique');
  const tsv = join(UPSTREAM_DIR, 'errors.tsv');
  if (!existsSync(tsv)) {
    console.log(`spec-drift: ${tsv} not found, errors check skipped`);
    return;
  }
  const lines = readFileSync(tsv, 'utf8').split('\n').filter(Boolean);
  const head = lines[0].split('\t');
  const [ci, ni, ri] = ['code', 'name', 'retriable'].map((h) => head.indexOf(h));
  const theirs = lines.slice(1).map((l) => {
    const c = l.split('\t');
    assert.ok(c[ri] === 'yes' || c[ri] === 'no', `retriable column: ${c[ri]}`);
    return { code: Number(c[ci]), name: c[ni], retriable: c[ri] === 'yes' };
  });
  // Codes Kafka 4.x added after the snapshot errors.tsv was taken from (Errors.java of 4.4.0).
  const later = new Set([129, 130, 131, 132, 135, 136]);
  assert.equal(ours.filter((e) => !later.has(e.code) || theirs.some((t) => t.code === e.code)), theirs);
});

test('apis.json: every advertised API has request+response specs and codecs covering the advertised range', () => {
  const apis = JSON.parse(readFileSync(join(SPEC_DIR, 'apis.json'), 'utf8')).apis as { apiKey: number; name: string; min: number; max: number; refuse?: [number, number] }[];
  const specs = specFiles.map(readSpec);
  for (const a of apis) {
    for (const type of ['request', 'response']) {
      const s = specs.find((x: any) => x.apiKey === a.apiKey && x.type === type);
      assert.ok(s, `${a.name} ${type} spec`);
      assert.is(s.name, `${a.name}${type === 'request' ? 'Request' : 'Response'}`);
      const [lo, hi] = range(s.validVersions);
      assert.ok(lo <= a.min && a.max <= hi, `${a.name} ${type}: validVersions ${s.validVersions} must cover advertised ${a.min}-${a.max}`);
    }
    const codec = (apiCodecs as Record<number, { minVersion: number; maxVersion: number; name: string }>)[a.apiKey];
    assert.ok(codec, `${a.name}: codec in api-table`);
    assert.is(codec.name, a.name);
    assert.ok(codec.minVersion <= a.min && a.max <= codec.maxVersion, `${a.name} codec range`);
    assert.ok(a.min <= a.max, `${a.name} min <= max`);
    if (a.refuse) assert.ok(a.min <= a.refuse[0] && a.refuse[0] <= a.refuse[1] && a.refuse[1] <= a.max, `${a.name} refuse inside the range`);
  }
  assert.is(new Set(apis.map((a) => a.apiKey)).size, apis.length, 'api keys unique');
  assert.equal(advertisedApis.map((a) => [a.apiKey, a.min, a.max]), apis.map((a) => [a.apiKey, a.min, a.max]), 'advertised.ts follows apis.json');
});

test(`Kafka's schemas: codec version ranges and flexible versions match, nothing unstable is advertised`, () => {
  if (schemasDir === null) return;
  for (const codec of Object.values(apiCodecs)) {
    const name = `${codec.name}Request`;
    const up = applyOverrides(name, readUpstream(join(schemasDir, `${name}.json`))) as { apiKey: number; validVersions: string; flexibleVersions: string; latestVersionUnstable?: boolean };
    assert.is(up.apiKey, codec.apiKey, `${codec.name} api key`);
    const [lo, hi] = range(up.validVersions);
    assert.is(codec.minVersion, lo, `${codec.name} min`);
    assert.is(codec.maxVersion, hi, `${codec.name} max`);
    const flex = up.flexibleVersions === 'none' ? -1 : range(up.flexibleVersions)[0];
    assert.is(codec.flexibleFrom, flex, `${codec.name} flexibleFrom (${up.flexibleVersions})`);
    const stable = up.latestVersionUnstable ? hi - 1 : hi;
    const adv = advertisedApis.find((a) => a.apiKey === codec.apiKey);
    if (adv) assert.ok(adv.max <= stable, `${codec.name}: advertised max ${adv.max} above the last stable version ${stable}`);
  }
});

test('generated code is current (generateAll() == files on disk, no extra files)', () => {
  const files = generateAll();
  const stale: string[] = [];
  for (const [rel, text] of files) {
    const p = join(GENERATED_DIR, rel);
    if (!existsSync(p) || readFileSync(p, 'utf8') !== text) stale.push(rel);
  }
  for (const f of readdirSync(join(GENERATED_DIR, 'messages'))) {
    if (!files.has(join('messages', f))) stale.push(`messages/${f} (not generated any more)`);
  }
  assert.equal(stale, [], `stale generated files (run npx tsx tools/codegen/main.ts): ${stale.join(', ')}`);
  assert.is([...files.keys()].filter((k) => k.startsWith('messages')).length, specFiles.length, 'one module per spec');
});

test.run();
