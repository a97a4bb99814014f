/**
 * Probes: client telemetry (KIP-714) on a broker with no client-metrics subscriptions and no
 * telemetry exporter: GetTelemetrySubscriptions (71) and PushTelemetry (72). Neither broker
 * advertises them (Kafka advertises them only with a telemetry exporter plugin), but both answer.
 *
 * Each probe uses a client instance id of its own: the broker keeps one state per instance id
 * (the push interval's throttle, the subscription id, terminating). Set-up requests go over the
 * shared set-up connection, which stays open (closing it would forget the instances it created).
 */
import { crc32cJs } from '../../src/protocol/records/crc32c.js';
import type { Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

/** A fixed client instance id per probe: 15 zero bytes and `n`. */
const instanceId = (n: number) => Buffer.concat([Buffer.alloc(15), Buffer.from([n])]).toString('base64url');

/** Java's Uuid.hashCode of a base64url id. */
function uuidHash(id: string): number {
  const b = Buffer.from(id, 'base64url');
  const h = b.readBigInt64BE(0) ^ b.readBigInt64BE(8);
  return Number(BigInt.asIntN(32, h >> 32n)) ^ Number(BigInt.asIntN(32, h));
}

/** One of the probes' own ids (15 zero bytes first). */
const isFixed = (id: string) => Buffer.from(id, 'base64url').subarray(0, 15).equals(Buffer.alloc(15));

/**
 * An assigned client instance id is random: it becomes a placeholder (the probes' own fixed ids
 * stay compared). The subscription id (CRC-32C of the subscribed metrics and the push interval,
 * XOR the instance id's hash) is compared by whether it follows that rule.
 */
export function assignedId(j: Json): Json {
  const o = j as Record<string, Json>;
  if (typeof o.clientInstanceId !== 'string' || o.clientInstanceId === instanceId(0)) return j;
  const metrics = Array.isArray(o.requestedMetrics) ? o.requestedMetrics : [];
  const text = `[${metrics.join(', ')}]${String(o.pushIntervalMs)}`;
  const expected = crc32cJs(Buffer.from(text)) ^ uuidHash(o.clientInstanceId);
  o.subscriptionId = o.subscriptionId === expected ? '<crc32c(metrics, interval) ^ hash(instance id)>' : o.subscriptionId;
  if (!isFixed(o.clientInstanceId)) o.clientInstanceId = '<assigned>';
  return j;
}

async function get(ctx: ProbeCtx, id: string): Promise<any> {
  return ctx.call(71, 0, { clientInstanceId: id });
}

const push = (id: string, extra: Record<string, unknown> = {}) => ({ clientInstanceId: id, subscriptionId: 0, terminating: false, compressionType: 0, metrics: Buffer.alloc(0), ...extra });

/** A push body naming the subscription id the set-up's GetTelemetrySubscriptions returned. */
function afterGet(n: number, extra: Record<string, unknown> = {}): Pick<Probe, 'setup' | 'body'> {
  const key = `telemetry-${n}`;
  return {
    setup: async (ctx) => {
      ctx.state[key] ??= (await get(ctx, instanceId(n))).subscriptionId;
    },
    body: (ctx) => push(instanceId(n), { subscriptionId: ctx.state[key], ...extra }),
  };
}

function probe(id: string, api: 71 | 72, about: string, p: Partial<Probe>): Probe {
  return { id: `telemetry/${id}`, api, version: 0, about, normalise: assignedId, ...p };
}

export function clientTelemetryProbes(): Probe[] {
  return [
    probe('get-new-instance', 71, 'a zero client instance id: the broker assigns one; no subscriptions: no metrics, the default 5 min interval', { body: { clientInstanceId: instanceId(0) } }),
    probe('get-known-instance', 71, 'a client instance id the broker has not seen: answered with that id', { body: { clientInstanceId: instanceId(1) } }),
    probe('get-again-too-soon', 71, 'a second request for the same instance within the push interval: THROTTLING_QUOTA_EXCEEDED', {
      setup: async (ctx) => {
        await ctx.once('telemetry-get-2', () => get(ctx, instanceId(2)));
      },
      body: { clientInstanceId: instanceId(2) },
    }),
    probe('push-zero-instance', 72, 'a push with the zero instance id: INVALID_REQUEST', { body: push(instanceId(0)) }),
    probe('push-reserved-instance', 72, 'a push with the reserved instance id 1 (Uuid.ONE_UUID): INVALID_REQUEST', { body: push(instanceId(1)) }),
    probe('push-unknown-subscription', 72, 'a first push for an unseen instance with a subscription id it was never given', { body: push(instanceId(3), { subscriptionId: 12345 }) }),
    probe('push-after-get', 72, 'a push after GetTelemetrySubscriptions with its subscription id, no compression, no metrics', afterGet(4)),
    probe('push-metrics', 72, 'a push with metrics bytes (nothing exports them)', afterGet(5, { metrics: Buffer.from('not otlp at all') })),
    probe('push-lz4', 72, 'a push compressed with a type the broker accepts but does not prefer (zstd first)', afterGet(6, { compressionType: 3 })),
    probe('push-bad-compression', 72, 'a push with an unknown compression type: UNSUPPORTED_COMPRESSION_TYPE', afterGet(7, { compressionType: 9 })),
    probe('push-wrong-subscription', 72, 'a push after GetTelemetrySubscriptions with another subscription id: UNKNOWN_SUBSCRIPTION_ID', {
      setup: async (ctx) => {
        await ctx.once('telemetry-get-8', () => get(ctx, instanceId(8)));
      },
      body: push(instanceId(8), { subscriptionId: 1 }),
    }),
    probe('push-twice', 72, 'a second push right after a push: THROTTLING_QUOTA_EXCEEDED', {
      setup: async (ctx) => {
        await ctx.once('telemetry-push-9', async () => {
          const sub = (await get(ctx, instanceId(9))).subscriptionId;
          ctx.state.telemetry9 = sub;
          await ctx.call(72, 0, push(instanceId(9), { subscriptionId: sub }));
        });
      },
      body: (ctx) => push(instanceId(9), { subscriptionId: ctx.state.telemetry9 }),
    }),
    probe('push-after-terminating', 72, 'a push after a terminating push: INVALID_REQUEST', {
      setup: async (ctx) => {
        await ctx.once('telemetry-push-10', async () => {
          const sub = (await get(ctx, instanceId(10))).subscriptionId;
          ctx.state.telemetry10 = sub;
          await ctx.call(72, 0, push(instanceId(10), { subscriptionId: sub, terminating: true }));
        });
      },
      body: (ctx) => push(instanceId(10), { subscriptionId: ctx.state.telemetry10, terminating: true }),
    }),
    probe('push-terminating-too-soon', 72, 'a terminating push right after a push is not throttled', {
      setup: async (ctx) => {
        await ctx.once('telemetry-push-11', async () => {
          const sub = (await get(ctx, instanceId(11))).subscriptionId;
          ctx.state.telemetry11 = sub;
          await ctx.call(72, 0, push(instanceId(11), { subscriptionId: sub }));
        });
      },
      body: (ctx) => push(instanceId(11), { subscriptionId: ctx.state.telemetry11, terminating: true }),
    }),
    probe('push-after-refused-and-get', 72, 'Get, a push refused for its subscription id, Get again (allowed at once), then a push with the right id', {
      setup: async (ctx) => {
        await ctx.once('telemetry-push-13', async () => {
          const sub = (await get(ctx, instanceId(13))).subscriptionId;
          ctx.state.telemetry13 = sub;
          await ctx.call(72, 0, push(instanceId(13), { subscriptionId: sub + 1 }));
          await get(ctx, instanceId(13));
        });
      },
      body: (ctx) => push(instanceId(13), { subscriptionId: ctx.state.telemetry13 }),
    }),
    probe('push-too-large', 72, 'metrics over telemetry.max.bytes (1 MiB): TELEMETRY_TOO_LARGE', afterGet(12, { metrics: Buffer.alloc(1_048_577, 1) })),
  ];
}
