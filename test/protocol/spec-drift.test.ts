/**
 * protocol-specs/ against the upstream Kafka schemas (when <repo>/../shared/kafka-protocol exists),
 * protocol-specs/errors.json against errors.tsv, apis.json against the message specs, and
 * src/protocol/generated/ against a fresh run of the generator (stale generated code fails).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAll } from '../../tools/codegen/main.js';
import { GENERATED_DIR, SPEC_DIR, UPSTREAM_DIR, upstreamPathFor } from '../../tools/codegen/paths.js';
import { readUpstream } from '../../tools/codegen/upstream.js';
import { apiCodecs } from '../../src/protocol/generated/api-table.js';
import { advertisedApis } from '../../src/protocol/generated/advertised.js';
import { ErrorCode, errorName, isRetriable } from '../../src/protocol/generated/error-codes.js';

const MESSAGES_DIR = join(SPEC_DIR, 'messages');
const upstreamPresent = existsSync(join(UPSTREAM_DIR, 'message'));
const specFiles = readdirSync(MESSAGES_DIR).filter((f) => f.endsWith('.json')).sort();
const readSpec = (file: string) => JSON.parse(readFileSync(join(MESSAGES_DIR, file), 'utf8'));

/**
 * Specs deliberately ahead of the upstream snapshot (which predates Kafka 4.0), with the
 * Kafka 4.4.0 facts they follow (read from the 4.4.0 kafka-clients jar: versions, fields, defaults).
 */
const AHEAD_OF_SNAPSHOT: Record<string, { reason: string; codecMin?: number; codecMax?: number; stable?: number; notInSnapshot?: { name: string; flex: string } }> = {
  ConsumerGroupHeartbeatRequest: { reason: 'v1 (regex subscriptions) is stable since Kafka 4.0', stable: 1 },
  ConsumerGroupHeartbeatResponse: { reason: 'v1 is stable since Kafka 4.0' },
  ConsumerGroupDescribeRequest: { reason: 'Kafka 4.4 has v0-1 (KIP-1099)', codecMax: 1, stable: 1 },
  ConsumerGroupDescribeResponse: { reason: 'v1 adds Members[].MemberType int8, default -1 (KIP-1099)' },
  DescribeGroupsRequest: { reason: 'Kafka 4.0 added v6 (KIP-1043)', codecMax: 6, stable: 6 },
  DescribeGroupsResponse: { reason: 'v6 adds Groups[].ErrorMessage, nullable, after ErrorCode (KIP-1043)' },
  InitializeShareGroupStateRequest: { reason: 'KIP-932 inter-broker API, stable since Kafka 4.1', stable: 0 },
  InitializeShareGroupStateResponse: { reason: 'KIP-932, as Kafka 4.4' },
  ReadShareGroupStateRequest: { reason: 'KIP-932 inter-broker API, stable since Kafka 4.1', stable: 0 },
  ReadShareGroupStateResponse: { reason: 'KIP-932, as Kafka 4.4' },
  WriteShareGroupStateRequest: { reason: 'Kafka 4.4 has v0-1: v1 adds DeliveryCompleteCount int32, default -1 (KIP-1226)', codecMax: 1, stable: 1 },
  WriteShareGroupStateResponse: { reason: 'v1 as v0 (KIP-1226)' },
  DeleteShareGroupStateRequest: { reason: 'KIP-932 inter-broker API, stable since Kafka 4.1', stable: 0 },
  DeleteShareGroupStateResponse: { reason: 'KIP-932, as Kafka 4.4' },
  ReadShareGroupStateSummaryRequest: { reason: 'Kafka 4.4 has v0-1 (KIP-1226)', codecMax: 1, stable: 1 },
  ReadShareGroupStateSummaryResponse: { reason: 'v1 adds DeliveryCompleteCount int32, default -1 (KIP-1226)' },
  // KIP-932 share groups as Kafka 4.4.0 defines them (v0 was Kafka 4.0's early access, removed in 4.1).
  ShareGroupHeartbeatRequest: { reason: 'Kafka 4.4 has v1 only: RebalanceTimeoutMs removed', codecMin: 1, codecMax: 1, stable: 1 },
  ShareGroupHeartbeatResponse: { reason: 'v1: Assignment without the Error field' },
  ShareGroupDescribeRequest: { reason: 'Kafka 4.4 has v1 only', codecMin: 1, codecMax: 1, stable: 1 },
  ShareGroupDescribeResponse: { reason: 'v1 adds Members[].RackId' },
  ShareFetchRequest: { reason: 'Kafka 4.4 has v1-2: MaxRecords, BatchSize (v1), ShareAcquireMode, IsRenewAck (v2); PartitionMaxBytes v0 only', codecMin: 1, codecMax: 2, stable: 2 },
  ShareFetchResponse: { reason: 'v1 adds AcquisitionLockTimeoutMs' },
  ShareAcknowledgeRequest: { reason: 'Kafka 4.4 has v1-2: IsRenewAck (v2, KIP-1222)', codecMin: 1, codecMax: 2, stable: 2 },
  ShareAcknowledgeResponse: { reason: 'v2 adds AcquisitionLockTimeoutMs (ignorable)' },
  DescribeShareGroupOffsetsRequest: { reason: 'Kafka 4.1+ (KIP-932), v0-1', codecMin: 0, codecMax: 1, stable: 1, notInSnapshot: { name: 'DescribeShareGroupOffsets', flex: '0' } },
  DescribeShareGroupOffsetsResponse: { reason: 'v1 adds Lag (KIP-1226)' },
  AlterShareGroupOffsetsRequest: { reason: 'Kafka 4.1+ (KIP-932), v0', codecMin: 0, codecMax: 0, stable: 0, notInSnapshot: { name: 'AlterShareGroupOffsets', flex: '0' } },
  AlterShareGroupOffsetsResponse: { reason: 'Kafka 4.1+ (KIP-932)' },
  DeleteShareGroupOffsetsRequest: { reason: 'Kafka 4.1+ (KIP-932), v0', codecMin: 0, codecMax: 0, stable: 0, notInSnapshot: { name: 'DeleteShareGroupOffsets', flex: '0' } },
  DeleteShareGroupOffsetsResponse: { reason: 'Kafka 4.1+ (KIP-932)' },
  // KIP-1142: Kafka 4.1 renamed ListClientMetricsResources (v0, the snapshot's name for key 74) and added v1.
  ListConfigResourcesRequest: { reason: 'Kafka 4.1+ (KIP-1142), v0-1: v1 adds ResourceTypes []int8', codecMin: 0, codecMax: 1, stable: 1, notInSnapshot: { name: 'ListConfigResources', flex: '0' } },
  ListConfigResourcesResponse: { reason: 'v1 adds ConfigResources[].ResourceType int8, ignorable, default 16 (CLIENT_METRICS); v0 was ClientMetricsResources[].Name' },
  ShareSnapshotValue: { reason: 'Kafka 4.4: SnapshotEpoch int32, CreateTimestamp, WriteTimestamp, tagged DeliveryCompleteCount' },
  ShareUpdateValue: { reason: 'Kafka 4.4: SnapshotEpoch int32, tagged DeliveryCompleteCount' },
  ShareGroupMetadataValue: { reason: 'Kafka 4.4: MetadataHash int64' },
  ShareGroupTargetAssignmentMetadataValue: { reason: 'Kafka 4.4: tagged AssignmentTimestamp' },
  ShareGroupStatePartitionMetadataValue: { reason: 'Kafka 4.4: InitializingTopics' },
};

function range(s: string): [number, number] {
  if (s === 'none') return [1, 0];
  if (s.endsWith('+')) return [Number(s.slice(0, -1)), Infinity];
  const [a, b] = s.split('-');
  return [Number(a), Number(b ?? a)];
}

test('protocol-specs/messages/*.json == reduceMessage(upstream) for every file', () => {
  if (!upstreamPresent) {
    console.log(`spec-drift: ${UPSTREAM_DIR}/message not found, drift check skipped`);
    return;
  }
  const drift: string[] = [];
  for (const file of specFiles) {
    const name = file.replace(/\.json$/, '');
    const src = upstreamPathFor(name);
    if (!src) {
      // Messages newer than the snapshot (Kafka 4.1+), transcribed from the 4.4.0 jar.
      if (AHEAD_OF_SNAPSHOT[name]) continue;
      drift.push(`${name}: no upstream schema`);
      continue;
    }
    if (AHEAD_OF_SNAPSHOT[name]) continue;
    const ours = readSpec(file);
    const theirs = readUpstream(src);
    try {
      assert.equal(ours, theirs);
    } catch {
      drift.push(`${name}: differs from ${src} (re-run tools/codegen/transcribe.ts ${name})`);
    }
  }
  assert.equal(drift, [], drift.join('\n'));
  console.log(`spec-drift: ${specFiles.length} message specs match upstream`);
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
  assert.equal(ours, theirs);
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

test('api-keys.tsv (upstream): codec version ranges and flexible versions match, nothing unstable is advertised', () => {
  const tsv = join(UPSTREAM_DIR, 'api-keys.tsv');
  if (!existsSync(tsv)) {
    console.log(`spec-drift: ${tsv} not found, api-keys check skipped`);
    return;
  }
  const lines = readFileSync(tsv, 'utf8').split('\n').filter(Boolean);
  const head = lines[0].split('\t');
  const rows = new Map(lines.slice(1).map((l) => {
    const c = l.split('\t');
    const get = (h: string) => c[head.indexOf(h)];
    return [Number(get('api_key')), { name: get('name'), min: Number(get('min_version')), max: Number(get('max_version')), stable: Number(get('max_stable_version')), flex: get('flexible_from') }];
  }));
  for (const codec of Object.values(apiCodecs)) {
    const ahead = AHEAD_OF_SNAPSHOT[`${codec.name}Request`];
    // notInSnapshot: a key the snapshot lacks, or names otherwise (a message renamed since)
    if (ahead?.notInSnapshot && rows.get(codec.apiKey)?.name !== codec.name) rows.set(codec.apiKey, { name: ahead.notInSnapshot.name, min: 0, max: 0, stable: 0, flex: ahead.notInSnapshot.flex });
    const u = rows.get(codec.apiKey);
    assert.ok(u, `${codec.name} in api-keys.tsv`);
    assert.is(u!.name, codec.name);
    if (ahead?.codecMin !== undefined) u!.min = ahead.codecMin;
    if (ahead?.codecMax !== undefined) u!.max = ahead.codecMax;
    if (ahead?.stable !== undefined) u!.stable = ahead.stable;
    assert.is(codec.minVersion, u!.min, `${codec.name} min`);
    assert.is(codec.maxVersion, u!.max, `${codec.name} max`);
    assert.is(codec.flexibleFrom, /^\d+$/.test(u!.flex) ? Number(u!.flex) : -1, `${codec.name} flexibleFrom (${u!.flex})`);
  }
  for (const a of advertisedApis) {
    const u = rows.get(a.apiKey)!;
    assert.ok(a.max <= u.stable, `${a.name}: advertised max ${a.max} above the last stable version ${u.stable}`);
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
