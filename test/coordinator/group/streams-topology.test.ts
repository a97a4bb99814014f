/**
 * A streams topology against the topics (coordinator/group/streams-topology.ts): missing sources,
 * repartition partition counts through a chain of subtopologies, copartition groups, changelog
 * counts, internal topics to create or wrongly partitioned, and the topology's own checks.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryTopicView } from '../../../src/coordinator/group/topic-view.js';
import { configureTopology, isReady, StreamsStatus, topicsHash, topologyError } from '../../../src/coordinator/group/streams-topology.js';
import type { StreamsTopology } from '../../../src/coordinator/group/streams-group.js';

const info = (name: string, partitions = 0, configs: Record<string, string> = {}) => ({ name, partitions, replicationFactor: 0, topicConfigs: Object.entries(configs).map(([key, value]) => ({ key, value })) });
const sub = (id: string, over: Partial<StreamsTopology['subtopologies'][number]> = {}) => ({
  subtopologyId: id, sourceTopics: [], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [], ...over,
});

/** a (3 partitions) -> sub 0 -> r1 -> sub 1 -> r2 -> sub 2 (with a store). */
const chain: StreamsTopology = {
  epoch: 0,
  subtopologies: [
    sub('0', { sourceTopics: ['a'], repartitionSinkTopics: ['r1'] }),
    sub('1', { repartitionSourceTopics: [info('r1')], repartitionSinkTopics: ['r2'] }),
    sub('2', { repartitionSourceTopics: [info('r2')], stateChangelogTopics: [info('store-changelog', 0, { 'cleanup.policy': 'compact' })] }),
  ],
};

test('repartition counts follow the chain; the changelog takes its subtopology\'s; the missing ones are to create', () => {
  const topics = new MemoryTopicView().set('a', 'AQEBAQEBAQEBAQEBAQEBAQ', 3);
  const c = configureTopology(chain, topics);
  assert.equal(c.problem, { code: StreamsStatus.MISSING_INTERNAL_TOPICS, detail: 'Internal topics are missing: r1, r2, store-changelog' });
  assert.equal(c.internalTopicsToCreate.map((t) => [t.name, t.numPartitions, t.replicationFactor, t.configs]), [
    ['r1', 3, -1, {}], ['r2', 3, -1, {}], ['store-changelog', 3, -1, { 'cleanup.policy': 'compact' }],
  ]);
  assert.equal([...c.tasks!], [['0', 3], ['1', 3], ['2', 3]]);
  assert.not.ok(isReady(c));
  topics.set('r1', 'AgICAgICAgICAgICAgICAg', 3).set('r2', 'AwMDAwMDAwMDAwMDAwMDAw', 3).set('store-changelog', 'BAQEBAQEBAQEBAQEBAQEBA', 3);
  const ready = configureTopology(chain, topics);
  assert.is(ready.problem, null);
  assert.ok(isReady(ready));
});

test('a missing source topic, and a regex that matches nothing', () => {
  const t: StreamsTopology = { epoch: 0, subtopologies: [sub('0', { sourceTopics: ['b', 'a'] }), sub('1', { sourceTopicRegex: ['x-.*'] })] };
  const c = configureTopology(t, new MemoryTopicView());
  assert.equal(c.problem, { code: StreamsStatus.MISSING_SOURCE_TOPICS, detail: 'Source topics a, b, x-.* are missing.' });
  const topics = new MemoryTopicView().set('a', 'AQEBAQEBAQEBAQEBAQEBAQ', 1).set('b', 'AgICAgICAgICAgICAgICAg', 4).set('x-1', 'AwMDAwMDAwMDAwMDAwMDAw', 2);
  const ok = configureTopology(t, topics);
  assert.is(ok.problem, null);
  assert.equal([...ok.tasks!], [['0', 4], ['1', 2]]);
});

test('copartition groups: differing source topics are INCORRECTLY_PARTITIONED_TOPICS; a flexible repartition topic takes the group\'s count', () => {
  const t: StreamsTopology = {
    epoch: 0,
    subtopologies: [
      sub('0', { sourceTopics: ['small'], repartitionSinkTopics: ['rk'] }),
      sub('1', { sourceTopics: ['left', 'right'], repartitionSourceTopics: [info('rk')], copartitionGroups: [{ sourceTopics: [0, 1], sourceTopicRegex: [], repartitionSourceTopics: [0] }] }),
    ],
  };
  const bad = new MemoryTopicView().set('small', 'AQEBAQEBAQEBAQEBAQEBAQ', 1).set('left', 'AgICAgICAgICAgICAgICAg', 4).set('right', 'AwMDAwMDAwMDAwMDAwMDAw', 2);
  assert.is(configureTopology(t, bad).problem!.code, StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS);
  const good = new MemoryTopicView().set('small', 'AQEBAQEBAQEBAQEBAQEBAQ', 1).set('left', 'AgICAgICAgICAgICAgICAg', 4).set('right', 'AwMDAwMDAwMDAwMDAwMDAw', 4);
  const c = configureTopology(t, good);
  assert.equal(c.internalTopicsToCreate.map((x) => [x.name, x.numPartitions]), [['rk', 4]], 'rk is copartitioned with left and right, not 1 like its writer');
});

test('an existing internal topic with another partition count is INCORRECTLY_PARTITIONED_TOPICS', () => {
  const topics = new MemoryTopicView().set('a', 'AQEBAQEBAQEBAQEBAQEBAQ', 3).set('r1', 'AgICAgICAgICAgICAgICAg', 3).set('r2', 'AwMDAwMDAwMDAwMDAwMDAw', 3).set('store-changelog', 'BAQEBAQEBAQEBAQEBAQEBA', 5);
  assert.equal(configureTopology(chain, topics).problem, { code: StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS, detail: 'Existing topic store-changelog has different number of partitions: expected 3, found 5' });
});

test('the topology\'s own checks, and the topics hash moving with a partition count', () => {
  assert.is(topologyError(chain), null);
  assert.match(topologyError({ epoch: 0, subtopologies: [sub('0'), sub('0')] })!, /Duplicate subtopology id 0/);
  assert.match(topologyError({ epoch: 0, subtopologies: [sub('0', { sourceTopics: ['bad name'] })] })!, /illegal/);
  assert.match(topologyError({ epoch: 0, subtopologies: [sub('0', { sourceTopics: ['a'], copartitionGroups: [{ sourceTopics: [3], sourceTopicRegex: [], repartitionSourceTopics: [] }] })] })!, /Copartition group/);
  const topics = new MemoryTopicView().set('a', 'AQEBAQEBAQEBAQEBAQEBAQ', 3);
  const h1 = topicsHash(chain, topics);
  assert.is(topicsHash(chain, topics), h1);
  topics.set('a', 'AQEBAQEBAQEBAQEBAQEBAQ', 4);
  assert.is.not(topicsHash(chain, topics), h1);
});

test.run();
