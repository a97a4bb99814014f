/**
 * Probes: the exact request frames real clients sent (../shared/fixtures/captures, see its
 * README.md), replayed byte for byte in the order of INDEX.tsv against both brokers after topics
 * `t1` (2 partitions) and `t2` (1 partition) are created, as the captures' mock broker had them.
 * Producer ids, member ids and topic ids inside the frames belong to the mock, so most group and
 * transaction frames meet unknown state: both brokers must answer that state alike.
 *
 * Without the fixtures folder there are no capture probes (the test says so in one line).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiKeysAsMap, sortAt, type Json } from './normalise.js';
import { coordinatorsReady, createTopic } from './fixtures.js';
import { assignedId } from './probes-client-telemetry.js';
import type { Probe, ProbeCtx } from './runner.js';

export const CAPTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'fixtures', 'captures');

export function capturesAvailable(): boolean {
  return existsSync(path.join(CAPTURES_DIR, 'INDEX.tsv'));
}

const setup = (ctx: ProbeCtx) =>
  ctx.once('capture-topics', async () => {
    await coordinatorsReady(ctx);
    await createTopic(ctx, 't1', 2);
    await createTopic(ctx, 't2', 1);
  });

/** Per-API order normalisation where Kafka's order is not the request's (hash maps). */
function normaliserFor(apiKey: number): ((j: Json) => Json) | undefined {
  switch (apiKey) {
    case 18:
      return apiKeysAsMap;
    case 0:
      return (j) => sortAt(sortAt(j, 'responses', 'name'), 'responses.[].partitionResponses', (x) => String((x as any).index).padStart(5, '0'));
    case 3:
      // All-topics answers come in the broker's own order.
      return (j) => sortAt(sortAt(j, 'topics', 'name'), 'topics.[].partitions', (x) => String((x as any).partitionIndex).padStart(5, '0'));
    case 2:
      return (j) => sortAt(sortAt(j, 'topics', 'name'), 'topics.[].partitions', (x) => String((x as any).partitionIndex).padStart(5, '0'));
    case 71:
      // The client instance id a broker assigns is random (the subscription id follows from it).
      return assignedId;
    case 68:
      // A consumer group's assignment lists topics in the coordinator's own (hash) order.
      return (j) => sortAt(j, 'assignment.topicPartitions', 'topicId');
    case 24:
      return (j) => sortAt(sortAt(j, 'resultsByTopicV3AndBelow', 'name'), 'resultsByTopicV3AndBelow.[].resultsByPartition', (x) => String((x as any).partitionIndex).padStart(5, '0'));
    case 1:
      // A fetch session's id (KIP-227, a full fetch with epoch 0) is random: whether there is one is compared.
      return (j) => {
        const o = j as Record<string, unknown>;
        if (typeof o.sessionId === 'number' && o.sessionId !== 0) o.sessionId = '<session-id>';
        return j;
      };
    default:
      return undefined;
  }
}

export function captureProbes(): Probe[] {
  if (!capturesAvailable()) return [];
  const lines = readFileSync(path.join(CAPTURES_DIR, 'INDEX.tsv'), 'utf8').split('\n').filter((l) => l.length > 0);
  const head = lines[0].split('\t');
  const col = (name: string) => head.indexOf(name);
  return lines.slice(1).map((l) => {
    const cells = l.split('\t');
    const file = cells[col('file')];
    const apiKey = Number(cells[col('api_key')]);
    const version = Number(cells[col('api_version')]);
    const bytes = Buffer.from(readFileSync(path.join(CAPTURES_DIR, `${file}.request.hex`), 'utf8').trim(), 'hex');
    const frame = Buffer.alloc(4 + bytes.length);
    frame.writeInt32BE(bytes.length, 0);
    bytes.copy(frame, 4);
    return {
      id: `capture/${file}`,
      api: apiKey,
      version,
      about: `${cells[col('client')]}: ${cells[col('api_name')]} v${version} as captured (${cells[col('notes')].slice(0, 120)})`,
      setup,
      // A copy per target: the runner's exchange patches nothing, but keep the table immutable.
      frame: () => Buffer.from(frame),
      normalise: normaliserFor(apiKey),
    } satisfies Probe;
  });
}
