/**
 * Replication throttles on a manual clock: the sampled rate (11 × 1 s windows, elapsed time padded
 * to 10 windows), the quota's exceeded state over time, turning it off with Long.MAX_VALUE, the
 * throttled-replicas lists ("*", partition:broker) and the rates followed from the metadata cache
 * (this broker's value over the cluster default).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { ManualClock } from '../../src/clock.js';
import {
  ReplicationQuota, ReplicationQuotas, ThrottledReplicas, dynamicBrokerConfig, UNTHROTTLED_TEXT,
} from '../../src/replication/replication-quota.js';
import { SampledRate } from '../../src/sampled-rate.js';
import type { MetadataCache } from '../../src/cluster/metadata-cache.js';

test('the rate is bytes over the elapsed time, padded to samples - 1 windows', () => {
  const clock = new ManualClock(0);
  const r = new SampledRate(11, 1000, clock.now());
  r.record(10_000, clock.now());
  // Padded: 10 000 bytes over 10 s, not over 0 ms.
  assert.is(r.rate(clock.now()), 1000);
  clock.advance(5000);
  assert.is(r.rate(clock.now()), 1000);
  clock.advance(7000); // 12 s: past 10 windows, the real elapsed time counts
  r.record(2000, clock.now());
  // The first sample (at 0) is older than 11 windows now and is dropped.
  assert.ok(r.rate(clock.now()) < 1000);
});

test('samples older than the whole window are forgotten', () => {
  const clock = new ManualClock(0);
  const r = new SampledRate(11, 1000, 0);
  r.record(50_000, 0);
  clock.advance(11_000);
  assert.is(r.rate(clock.now()), 0);
});

test('the quota is exceeded while the rate is above the bound, and falls back under it', () => {
  const clock = new ManualClock(0);
  const q = new ReplicationQuota(11, 1000, clock);
  assert.not.ok(q.active);
  q.record(1e9);
  assert.not.ok(q.isQuotaExceeded(), 'no bound: never exceeded');
  q.updateQuota(1000);
  assert.ok(q.active);
  // 1e9 bytes recorded before the bound: way above 1000 B/s.
  assert.ok(q.isQuotaExceeded());
  assert.ok(q.msUntilBelow() > 0);
  clock.advance(11_000);
  assert.not.ok(q.isQuotaExceeded(), 'the burst has left the window');
  // 9 000 bytes in 10 s of padded window: 900 B/s, under 1000.
  q.record(9000);
  assert.not.ok(q.isQuotaExceeded());
  q.record(2000);
  assert.ok(q.isQuotaExceeded(), '11 000 bytes over 10 s is 1100 B/s');
  assert.is(q.msUntilBelow(), 100);
  clock.advance(1000);
  // Still within the window: the same bytes over 10 s (padding) — still exceeded.
  assert.ok(q.isQuotaExceeded());
  q.updateQuota(Number(UNTHROTTLED_TEXT));
  assert.not.ok(q.active, 'Long.MAX_VALUE turns the quota off');
  assert.not.ok(q.isQuotaExceeded());
});

test('a steady sender at the bound stays about at the bound', () => {
  const clock = new ManualClock(0);
  const q = new ReplicationQuota(11, 1000, clock);
  q.updateQuota(100_000);
  let sent = 0;
  // A sender that sends 10 KB every 10 ms whenever the quota is not exceeded, for 30 s.
  for (let t = 0; t < 30_000; t += 10) {
    if (!q.isQuotaExceeded()) {
      q.record(10_000);
      sent += 10_000;
    }
    clock.advance(10);
  }
  const rate = sent / 30;
  assert.ok(rate <= 100_000 * 1.15, `rate ${rate} B/s`);
  assert.ok(rate >= 100_000 * 0.85, `rate ${rate} B/s`);
});

test('throttled replicas: "*", partition:broker pairs for this broker only', () => {
  const t = new ThrottledReplicas(2);
  assert.not.ok(t.isThrottled(undefined, 0));
  assert.not.ok(t.isThrottled('', 0));
  assert.ok(t.isThrottled('*', 7));
  assert.ok(t.isThrottled('0:1,0:2,1:3', 0));
  assert.not.ok(t.isThrottled('0:1,0:2,1:3', 1));
  assert.ok(t.isThrottled(' 3:2 , 4:2', 4));
  assert.not.ok(new ThrottledReplicas(1).isThrottled('3:2', 3));
});

test('rates follow the metadata cache: the broker value over the cluster default, else off', async () => {
  const clock = new ManualClock(0);
  const cache = Object.assign(new EventEmitter(), { brokerConfigs: new Map<string, Record<string, string>>() });
  const q = new ReplicationQuotas(1, 11, 1000, clock);
  q.follow(cache as unknown as MetadataCache);
  assert.not.ok(q.leader.active);
  cache.brokerConfigs.set('<default>', { 'leader.replication.throttled.rate': '5000', 'follower.replication.throttled.rate': '6000' });
  cache.emit('change', { events: [{ kind: 'brokerConfig', revision: 1, key: '<default>', value: {} }], resynced: false });
  assert.is(q.leader.upperBound, 5000);
  assert.is(q.follower.upperBound, 6000);
  cache.brokerConfigs.set('1', { 'leader.replication.throttled.rate': '100' });
  cache.emit('change', { events: [{ kind: 'brokerConfig', revision: 2, key: '1', value: {} }], resynced: false });
  assert.is(q.leader.upperBound, 100);
  assert.is(q.follower.upperBound, 6000);
  assert.is(dynamicBrokerConfig(cache, 2, 'leader.replication.throttled.rate'), '5000');
  cache.brokerConfigs.clear();
  cache.emit('change', { events: [], resynced: true });
  assert.not.ok(q.leader.active);
  assert.not.ok(q.follower.active);
});

test.run();
