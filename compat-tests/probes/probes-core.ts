/**
 * Probes: ApiVersions, Metadata, and hostile or malformed frames (unknown API keys and versions,
 * bad sizes, truncated bodies, trailing bytes, odd headers). For inputs that close the
 * connection the comparison is "closed vs answered" (wire.ts).
 */
import { Writer } from '../../src/protocol/writer.js';
import { apiKeysAsMap, sortAt, type Json } from './normalise.js';
import { createTopic, waitTopic } from './fixtures.js';
import type { Probe, ProbeCtx } from './runner.js';
import { rawFrame, requestFrame } from './wire.js';

const sw = { clientSoftwareName: 'samsa-probe', clientSoftwareVersion: '1.0.0' };

/** "All topics" answers list every topic of the broker: compare them sorted (Kafka's order is a hash map's). */
const sortTopics = (j: Json): Json => sortAt(sortAt(j, 'topics', 'name'), 'topics.[].partitions', (x) => String((x as any).partitionIndex).padStart(5, '0'));

/** A Metadata body naming topics (v10+ entries carry a topic id). */
const mdTopics = (...names: (string | null)[]) => names.map((name) => ({ name }));

function apiVersionsProbes(): Probe[] {
  const v = (version: number, body: Record<string, unknown> = {}): Probe => ({
    id: `api-versions/v${version}`,
    api: 18,
    version,
    about: 'the advertised table (advertise.md)',
    body,
    normalise: apiKeysAsMap,
  });
  return [
    v(0),
    v(1),
    v(2),
    v(3, sw),
    v(4, sw),
    {
      id: 'api-versions/v3-invalid-software-name',
      api: 18,
      version: 3,
      about: 'client_software_name not matching [a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?: INVALID_REQUEST',
      body: { clientSoftwareName: 'bad name!', clientSoftwareVersion: '1.0' },
      normalise: apiKeysAsMap,
    },
    {
      id: 'api-versions/v3-empty-software-name',
      api: 18,
      version: 3,
      about: 'empty client_software_name',
      body: { clientSoftwareName: '', clientSoftwareVersion: '' },
      normalise: apiKeysAsMap,
    },
    {
      id: 'api-versions/v127-unknown-version',
      api: 18,
      version: 127,
      about: 'unknown ApiVersions version: UNSUPPORTED_VERSION in v0 form with ApiVersions\' own range',
      frame: () => rawFrame(18, 127, Buffer.from([0, 0]), { correlationId: 7 }),
      decodeAs: { apiKey: 18, version: 0 },
      normalise: apiKeysAsMap,
    },
    {
      id: 'api-versions/v3-trailing-bytes',
      api: 18,
      version: 3,
      about: 'bytes after a complete body are ignored',
      frame: () => requestFrame(18, 3, sw, { correlationId: 7, trailing: Buffer.from('deadbeef', 'hex') }),
      normalise: apiKeysAsMap,
    },
    {
      id: 'api-versions/v0-null-client-id',
      api: 18,
      version: 0,
      about: 'request header with a null client id',
      frame: () => requestFrame(18, 0, {}, { correlationId: 7, clientId: null }),
      normalise: apiKeysAsMap,
    },
  ];
}

const MD_TOPIC = 'probe-md';
const mdSetup = (ctx: ProbeCtx) => ctx.once('md-topic', () => createTopic(ctx, MD_TOPIC, 2));

function metadataProbes(): Probe[] {
  const p = (id: string, version: number, about: string, body: Record<string, unknown> | ((ctx: ProbeCtx) => Record<string, unknown>), extra: Partial<Probe> = {}): Probe => ({
    id: `metadata/${id}`,
    api: 3,
    version,
    about,
    setup: mdSetup,
    body,
    ...extra,
  });
  return [
    p('v0-named', 0, 'one topic by name (v0)', { topics: mdTopics(MD_TOPIC) }),
    p('v0-empty-list-means-all', 0, 'v0: an empty list means all topics (M6)', { topics: [] }, { normalise: sortTopics }),
    p('v1-null-all-topics', 1, 'topics null: all topics, internal ones included (M5)', { topics: null }, { normalise: sortTopics }),
    p('v1-empty-list', 1, 'topics [] (v1+): no topics (M6)', { topics: [] }),
    p('v4-unknown-no-auto-create', 4, 'missing topic, allow_auto_topic_creation false (M2)', { topics: mdTopics('probe-md-missing-1'), allowAutoTopicCreation: false }),
    p('v12-unknown-no-auto-create', 12, 'missing topic, allow_auto_topic_creation false (M2)', { topics: mdTopics('probe-md-missing-2'), allowAutoTopicCreation: false }),
    p('v12-auto-create', 12, 'missing topic, auto-create on (M1: Kafka answers 3 and creates in the background)', { topics: mdTopics('probe-md-auto'), allowAutoTopicCreation: true }, {
      // Whatever the first answer, both must end with the topic created (later probes list it).
      after: (ctx) => waitTopic(ctx, 'probe-md-auto', 1),
    }),
    p('v12-named', 12, 'topics by name at the newest version', { topics: mdTopics(MD_TOPIC) }),
    p('v9-named', 9, 'first flexible version', { topics: mdTopics(MD_TOPIC) }),
    p('v7-named', 7, 'last version before tags', { topics: mdTopics(MD_TOPIC) }),
    p('v8-authorized-operations', 8, 'include_topic/cluster_authorized_operations without an authorizer', {
      topics: mdTopics(MD_TOPIC),
      includeClusterAuthorizedOperations: true,
      includeTopicAuthorizedOperations: true,
    }),
    p('v12-null-all-topics', 12, 'all topics at v12 (M5)', { topics: null }, { normalise: sortTopics }),
    p('v12-invalid-name', 12, 'illegal topic name (M3): INVALID_TOPIC_EXCEPTION', { topics: mdTopics('bad name!'), allowAutoTopicCreation: true }),
    p('v12-invalid-name-no-auto', 12, 'illegal topic name, auto-create off (M3)', { topics: mdTopics('bad/name'), allowAutoTopicCreation: false }),
    p('v12-empty-name', 12, 'topic name ""', { topics: mdTopics(''), allowAutoTopicCreation: true }),
    p('v12-long-name', 12, 'topic name of 250 characters (M3)', { topics: mdTopics('x'.repeat(250)), allowAutoTopicCreation: true }),
    p('v4-internal-topic', 4, 'an internal topic by name (is_internal)', { topics: mdTopics('__consumer_offsets'), allowAutoTopicCreation: false }, {
      normalise: (j) => sortAt(j, 'topics.[].partitions', (x) => String((x as any).partitionIndex).padStart(5, '0')),
    }),
    p('v12-duplicate-names', 12, 'the same topic twice in one request', { topics: mdTopics(MD_TOPIC, MD_TOPIC) }),
    p('v12-unknown-topic-id', 12, 'lookup by unknown topic id (M7): UNKNOWN_TOPIC_ID, name null', {
      topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }],
    }),
    p('v12-by-topic-id', 12, 'lookup by a known topic id', (ctx: ProbeCtx) => ({ topics: [{ name: null, topicId: ctx.state.mdTopicId }] }), {
      setup: async (ctx) => {
        await mdSetup(ctx);
        ctx.state.mdTopicId = await idOf(ctx);
      },
    }),
    p('v10-null-name', 10, 'v10-11 entry with a null name (M8): INVALID_REQUEST', { topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }] }),
    p('v12-mixed-known-unknown', 12, 'a known and an unknown topic together', { topics: mdTopics(MD_TOPIC, 'probe-md-missing-3'), allowAutoTopicCreation: false }),
  ];
}

async function idOf(ctx: ProbeCtx): Promise<string> {
  const md = await ctx.call(3, 12, { topics: [{ name: MD_TOPIC }], allowAutoTopicCreation: false });
  return md.topics[0].topicId;
}

/** A frame with an arbitrary size prefix (the rest as given). */
function sized(size: number, rest: Buffer): Buffer {
  const b = Buffer.alloc(4 + rest.length);
  b.writeInt32BE(size, 0);
  rest.copy(b, 4);
  return b;
}

/** Request header v1 bytes (api key, version, correlation id 7, client id). */
function header(apiKey: number, version: number, flexible = false): Buffer {
  const w = new Writer(64);
  w.int16(apiKey);
  w.int16(version);
  w.int32(7);
  w.nullableString('samsa-probe');
  if (flexible) w.uvarint(0);
  return w.toBuffer();
}

function framed(rest: Buffer): Buffer {
  return sized(rest.length, rest);
}

function hostileProbes(): Probe[] {
  const h = (id: string, api: number, version: number, about: string, frame: () => Buffer, extra: Partial<Probe> = {}): Probe => ({
    id: `hostile/${id}`,
    api,
    version,
    about,
    frame,
    ...extra,
  });
  return [
    h('unknown-api-key-999', 999, 0, 'unknown API key (X1): connection closed', () => rawFrame(999, 0, Buffer.alloc(0), { correlationId: 7 })),
    h('unknown-api-key-negative', -1, 0, 'negative API key (X1)', () => rawFrame(-1, 0, Buffer.alloc(0), { correlationId: 7 })),
    h('api-key-4-leader-and-isr', 4, 7, 'a broker-to-controller API a client must not reach (LeaderAndIsr, gone in KRaft)', () => rawFrame(4, 7, Buffer.alloc(8), { correlationId: 7 })),
    h('metadata-v99', 3, 99, 'unknown version of a known API (X1)', () => rawFrame(3, 99, Buffer.from([0, 0, 0, 0]), { correlationId: 7 })),
    h('metadata-v-1', 3, -1, 'negative version (X1)', () => rawFrame(3, -1, Buffer.from([0, 0, 0, 0]), { correlationId: 7 })),
    h('fetch-v3-below-floor', 1, 3, 'Fetch v3, below Kafka 4\'s floor (X1)', () => rawFrame(1, 3, Buffer.alloc(20), { correlationId: 7 })),
    h('list-offsets-v0-below-floor', 2, 0, 'ListOffsets v0, below Kafka 4\'s floor (X1)', () => rawFrame(2, 0, Buffer.alloc(8), { correlationId: 7 })),
    h('offset-commit-v1-below-floor', 8, 1, 'OffsetCommit v1, below Kafka 4\'s floor (X1)', () => rawFrame(8, 1, Buffer.alloc(8), { correlationId: 7 })),
    h('produce-v14-above-max', 0, 14, 'Produce above every advertised version (X1)', () => rawFrame(0, 14, Buffer.alloc(8), { correlationId: 7, flexibleHeader: true })),
    h('frame-size-negative', 18, 0, 'negative frame size: closed', () => sized(-5, header(18, 0))),
    h('frame-size-over-limit', 18, 0, 'frame size above socket.request.max.bytes (100 MiB): closed', () => sized(200 * 1024 * 1024, header(18, 0))),
    h('frame-too-short-for-header', 18, 0, 'a 3-byte frame (no complete header): closed', () => framed(Buffer.from([0, 18, 0]))),
    h('frame-header-only-api-key-and-version', 3, 1, 'header cut before the correlation id', () => framed(Buffer.from([0, 3, 0, 1]))),
    h('client-id-length-beyond-frame', 3, 1, 'client id length larger than the frame', () => {
      const b = Buffer.from([0, 3, 0, 1, 0, 0, 0, 7, 0x7f, 0xff, 0x61]);
      return framed(b);
    }),
    h('metadata-v1-truncated-array', 3, 1, 'topics array of 5 with no elements (X2): closed', () => framed(Buffer.concat([header(3, 1), Buffer.from([0, 0, 0, 5])]))),
    h('metadata-v1-huge-array', 3, 1, 'topics array length 2^31-1 (X2)', () => framed(Buffer.concat([header(3, 1), Buffer.from([0x7f, 0xff, 0xff, 0xff])]))),
    h('metadata-v1-negative-string-length', 3, 1, 'topic name length -2 (X2)', () => framed(Buffer.concat([header(3, 1), Buffer.from([0, 0, 0, 1, 0xff, 0xfe])]))),
    h('metadata-v12-compact-array-huge', 3, 12, 'compact topics array length beyond the frame (X2)', () => framed(Buffer.concat([header(3, 12, true), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x07])]))),
    h('metadata-v12-empty-body', 3, 12, 'flexible header, no body at all (X2)', () => framed(header(3, 12, true))),
    h('metadata-v12-missing-header-tags', 3, 12, 'flexible version sent with a v1 header (no tag section)', () => framed(Buffer.concat([header(3, 12, false), Buffer.from([0x01, 0x01, 0x00, 0x00])]))),
    h('metadata-v12-unknown-header-tag', 3, 12, 'an unknown tagged field in the request header is skipped', () => {
      const w = new Writer(64);
      w.int16(3); w.int16(12); w.int32(7); w.nullableString('samsa-probe');
      w.uvarint(1); w.uvarint(9); w.uvarint(2); w.bytesRaw(Buffer.from([1, 2]));
      w.uvarint(1); w.bool(false); w.bool(false); w.uvarint(0);
      return framed(w.toBuffer());
    }),
    h('metadata-v12-unknown-body-tag', 3, 12, 'an unknown tagged field in the request body is skipped', () => {
      const w = new Writer(64);
      w.int16(3); w.int16(12); w.int32(7); w.nullableString('samsa-probe'); w.uvarint(0);
      w.uvarint(1); w.bool(false); w.bool(false);
      w.uvarint(1); w.uvarint(42); w.uvarint(1); w.int8(5);
      return framed(w.toBuffer());
    }),
    h('metadata-v12-tags-out-of-order', 3, 12, 'tagged fields out of order in the body', () => {
      const w = new Writer(64);
      w.int16(3); w.int16(12); w.int32(7); w.nullableString('samsa-probe'); w.uvarint(0);
      w.uvarint(1); w.bool(false); w.bool(false);
      w.uvarint(2); w.uvarint(9); w.uvarint(0); w.uvarint(3); w.uvarint(0);
      return framed(w.toBuffer());
    }),
    h('metadata-v12-trailing-bytes', 3, 12, 'librdkafka 2.15 all-topics Metadata: 4 bytes after the body, ignored', () => requestFrame(3, 12, { topics: [] }, { correlationId: 7, trailing: Buffer.from([0xff, 0xff, 0xff, 0xff]) })),
    h('metadata-v1-trailing-bytes', 3, 1, 'bytes after a non-flexible body, ignored', () => requestFrame(3, 1, { topics: [] }, { correlationId: 7, trailing: Buffer.from('trailing') })),
    h('metadata-v12-bool-not-0-or-1', 3, 12, 'a boolean byte of 2', () => {
      const w = new Writer(64);
      w.int16(3); w.int16(12); w.int32(7); w.nullableString('samsa-probe'); w.uvarint(0);
      w.uvarint(1); w.int8(2); w.bool(false); w.uvarint(0);
      return framed(w.toBuffer());
    }),
    h('metadata-v12-invalid-utf8-name', 3, 12, 'a topic name that is not UTF-8', () => {
      const w = new Writer(64);
      w.int16(3); w.int16(12); w.int32(7); w.nullableString('samsa-probe'); w.uvarint(0);
      w.uvarint(2); w.uuid('AAAAAAAAAAAAAAAAAAAAAA'); w.uvarint(4); w.bytesRaw(Buffer.from([0xc3, 0x28, 0xff])); w.uvarint(0);
      w.bool(false); w.bool(false); w.uvarint(0);
      return framed(w.toBuffer());
    }),
    // Empty and null arrays: an empty list is answered with nothing in it; a null where the schema
    // does not allow one is a parse failure (X2).
    h('produce-v9-no-topics', 0, 9, 'Produce with topic_data []', () => requestFrame(0, 9, { acks: -1, timeoutMs: 1000, topicData: [] }, { correlationId: 7 })),
    h('fetch-v12-no-topics', 1, 12, 'Fetch with topics []', () => requestFrame(1, 12, { maxWaitMs: 20, minBytes: 1, topics: [] }, { correlationId: 7 })),
    h('list-offsets-v9-no-topics', 2, 9, 'ListOffsets with topics []', () => requestFrame(2, 9, { replicaId: -1, topics: [] }, { correlationId: 7 })),
    h('create-topics-v7-no-topics', 19, 7, 'CreateTopics with topics []', () => requestFrame(19, 7, { topics: [], timeoutMs: 1000 }, { correlationId: 7 })),
    h('describe-configs-v4-no-resources', 32, 4, 'DescribeConfigs with resources []', () => requestFrame(32, 4, { resources: [] }, { correlationId: 7 })),
    h('offset-commit-v8-no-topics', 8, 8, 'OffsetCommit with topics []', () => requestFrame(8, 8, { groupId: 'probe-empty-commit', generationIdOrMemberEpoch: -1, memberId: '', topics: [] }, { correlationId: 7 })),
    h('describe-groups-v5-no-groups', 15, 5, 'DescribeGroups with groups []', () => requestFrame(15, 5, { groups: [] }, { correlationId: 7 })),
    h('create-topics-v7-null-topics', 19, 7, 'CreateTopics with a null (compact 0) topics array, which the schema does not allow (X2)', () => {
      const w = new Writer(64);
      w.int16(19); w.int16(7); w.int32(7); w.nullableString('samsa-probe'); w.uvarint(0);
      w.uvarint(0); w.int32(1000); w.bool(false); w.uvarint(0);
      return framed(w.toBuffer());
    }),
    h('produce-v9-null-topic-data', 0, 9, 'Produce with a null topic_data array (X2)', () => {
      const w = new Writer(64);
      w.int16(0); w.int16(9); w.int32(7); w.nullableString('samsa-probe'); w.uvarint(0);
      w.uvarint(0); w.int16(-1); w.int32(1000); w.uvarint(0); w.uvarint(0);
      return framed(w.toBuffer());
    }),
    h('metadata-v1-null-topic-name', 3, 1, 'Metadata v1 with a null topic name (int16 -1) where names are not nullable (X2)', () => framed(Buffer.concat([header(3, 1), Buffer.from([0, 0, 0, 1, 0xff, 0xff])]))),
    h('sasl-handshake-v0-plaintext', 17, 0, 'SaslHandshake v0 on a PLAINTEXT listener: ILLEGAL_SASL_STATE', () => requestFrame(17, 0, { mechanism: 'PLAIN' }, { correlationId: 7 })),
    h('sasl-handshake-v1-plaintext', 17, 1, 'SaslHandshake v1 on a PLAINTEXT listener', () => requestFrame(17, 1, { mechanism: 'SCRAM-SHA-256' }, { correlationId: 7 })),
    h('sasl-authenticate-v0-plaintext', 36, 0, 'SaslAuthenticate v0 on a PLAINTEXT listener without a handshake', () => requestFrame(36, 0, { authBytes: Buffer.from('\u0000user\u0000pass') }, { correlationId: 7 })),
    h('sasl-authenticate-v2-plaintext', 36, 2, 'SaslAuthenticate v2 on a PLAINTEXT listener without a handshake', () => requestFrame(36, 2, { authBytes: Buffer.alloc(0) }, { correlationId: 7 })),
  ];
}

/** DescribeTopicPartitions (75): by name, paged by the partition limit and the cursor. */
function describeTopicPartitionsProbes(): Probe[] {
  const setup = (ctx: ProbeCtx) => ctx.once('dtp-topics', async () => {
    await createTopic(ctx, 'pdtp-a', 3);
    await createTopic(ctx, 'pdtp-b', 1);
  });
  /** "All topics" answers list every topic from the cursor on: keep this probe's. */
  const ours = (j: Json): Json => {
    const o = j as { topics?: { name: string }[] };
    if (Array.isArray(o.topics)) o.topics = o.topics.filter((t) => t.name.startsWith('pdtp-'));
    return j;
  };
  const d = (id: string, about: string, body: Record<string, unknown>, normalise?: (j: Json) => Json): Probe => ({
    id: `describe-topic-partitions/${id}`, api: 75, version: 0, about, setup, body, normalise,
  });
  return [
    d('v0-named', 'a known topic, an unknown one and an illegal name', { topics: [{ name: 'pdtp-a' }, { name: 'pdtp-missing' }, { name: 'bad name' }] }),
    d('v0-limit', 'response_partition_limit 2 on a 3-partition topic: next_cursor', { topics: [{ name: 'pdtp-a' }, { name: 'pdtp-b' }], responsePartitionLimit: 2 }),
    d('v0-cursor', 'continuing from a cursor', { topics: [{ name: 'pdtp-a' }, { name: 'pdtp-b' }], responsePartitionLimit: 2, cursor: { topicName: 'pdtp-a', partitionIndex: 2 } }),
    d('v0-all-from-cursor', 'topics []: every topic from the cursor on', { topics: [], cursor: { topicName: 'pdtp-', partitionIndex: 0 } }, ours),
    d('v0-negative-cursor', 'a negative cursor partition: INVALID_REQUEST', { topics: [{ name: 'pdtp-a' }], cursor: { topicName: 'pdtp-a', partitionIndex: -1 } }),
    d('v0-internal', 'an internal topic by name', { topics: [{ name: '__consumer_offsets' }], responsePartitionLimit: 1 }),
  ];
}

export function coreProbes(): Probe[] {
  return [...apiVersionsProbes(), ...metadataProbes(), ...describeTopicPartitionsProbes(), ...hostileProbes()];
}

