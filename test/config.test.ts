import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  BROKER_SETTINGS,
  ConfigSource,
  ConfigType,
  LONG_MAX,
  TOPIC_CONFIGS,
  advertisedListeners,
  brokerListeners,
  configTypeOf,
  describeBrokerConfig,
  envVarToSetting,
  isTopicConfigName,
  listenerSecurityProtocol,
  loadConfig,
  parseConfigArgs,
  parseListeners,
  parseProperties,
  resolveTopicConfig,
  validateTopicConfig,
  type BrokerConfig,
  type ConfigEntry,
} from '../src/config.js';
import { ConfigError } from '../src/errors.js';
import { tmpDir } from './support/tmp.js';

const CWD = '/srv/samsa';

function load(opts: { argv?: string[]; env?: NodeJS.ProcessEnv; cwd?: string } = {}): BrokerConfig {
  return loadConfig({ argv: opts.argv ?? [], env: opts.env ?? {}, cwd: opts.cwd ?? CWD });
}

function throwsConfig(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (e) {
    assert.instance(e, ConfigError);
    assert.match((e as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected ConfigError matching ${pattern}`);
}

function withFile(text: string, fn: (file: string) => void): void {
  const dir = tmpDir('config');
  const file = path.join(dir.path, 'server.properties');
  writeFileSync(file, text);
  try {
    fn(file);
  } finally {
    void dir.cleanup();
  }
}

function entry(entries: ConfigEntry[], name: string): ConfigEntry {
  const e = entries.find((x) => x.name === name);
  assert.ok(e, `no entry ${name}`);
  return e!;
}

// ---- defaults ------------------------------------------------------------------------------

test('defaults are Kafka\'s (and Samsa\'s documented choices)', () => {
  const c = load();
  assert.is(c['node.id'], 1);
  assert.is(c.listeners, 'PLAINTEXT://:9092');
  assert.is(c['advertised.listeners'], null);
  assert.equal(c['log.dirs'], [path.resolve(CWD, 'data')]);
  assert.is(c['num.partitions'], 1);
  assert.is(c['default.replication.factor'], 1);
  assert.is(c['auto.create.topics.enable'], true);
  assert.is(c['delete.topic.enable'], true);
  assert.is(c['socket.request.max.bytes'], 104857600);
  assert.is(c['message.max.bytes'], 1048588);
  assert.is(c['log.segment.bytes'], 1073741824);
  assert.is(c['log.roll.hours'], 168);
  assert.is(c['log.roll.ms'], 168 * 3600 * 1000);
  assert.is(c['log.retention.hours'], 168);
  assert.is(c['log.retention.minutes'], null);
  assert.is(c['log.retention.ms'], 604800000);
  assert.is(c['log.retention.bytes'], -1);
  assert.is(c['log.retention.check.interval.ms'], 300000);
  assert.is(c['log.index.interval.bytes'], 4096);
  assert.is(c['log.index.size.max.bytes'], 10485760);
  assert.is(c['log.flush.interval.messages'], LONG_MAX);
  assert.is(c['log.flush.scheduler.interval.ms'], LONG_MAX);
  assert.is(c['log.flush.interval.ms'], LONG_MAX); // effective: falls back to the scheduler interval
  assert.is(c['log.message.timestamp.type'], 'CreateTime');
  assert.equal(c['log.cleanup.policy'], ['delete']);
  assert.is(c['log.segment.delete.delay.ms'], 60000);
  assert.is(c['offsets.topic.num.partitions'], 50);
  assert.is(c['offsets.topic.replication.factor'], 3);
  assert.is(c['offsets.retention.minutes'], 10080);
  assert.is(c['group.initial.rebalance.delay.ms'], 0);
  assert.is(c['group.min.session.timeout.ms'], 6000);
  assert.is(c['group.max.session.timeout.ms'], 1800000);
  assert.is(c['group.max.size'], 2147483647);
  assert.is(c['transaction.state.log.num.partitions'], 50);
  assert.is(c['transaction.max.timeout.ms'], 900000);
  assert.is(c['transactional.id.expiration.ms'], 604800000);
  assert.is(c['producer.id.expiration.ms'], 86400000);
  assert.is(c['cluster.id'], null);
  assert.is(c['compression.type'], 'producer');
  assert.is(c['min.insync.replicas'], 1);
  assert.is(c['connections.max.idle.ms'], 600000);
  assert.is(c['fetch.max.bytes'], 57671680);
  assert.is(c['queued.max.requests'], 500);
  assert.is(c['samsa.flush.on.acks.all'], false);
  assert.equal(c.explicit, {});
  assert.is(c.configFile, null);
  assert.ok(Object.isFrozen(c));
});

test('typed view: numbers, lists, booleans, null only where nothing derives a value', () => {
  const c = load();
  const retention: number = c['log.retention.ms'];
  const minutes: number | null = c['log.retention.minutes'];
  const dirs: string[] = c['log.dirs'];
  const flag: boolean = c['samsa.flush.on.acks.all'];
  const adv: string | null = c['advertised.listeners'];
  // @ts-expect-error log.retention.minutes may be null
  const notNull: number = c['log.retention.minutes'];
  // @ts-expect-error not a setting
  void c['log.dirz'];
  const t = resolveTopicConfig(c).values;
  const policy: string[] = t['cleanup.policy'];
  const ratio: number = t['min.cleanable.dirty.ratio'];
  assert.equal([retention, minutes, dirs.length, flag, adv, notNull, policy, ratio], [604800000, null, 1, false, null, null, ['delete'], 0.5]);
});

test('every table entry has a doc line and a default that parses', () => {
  for (const [name, spec] of [...Object.entries(BROKER_SETTINGS), ...Object.entries(TOPIC_CONFIGS)]) {
    assert.ok(spec.doc.length > 10, `${name} has no doc`);
  }
  const r = resolveTopicConfig(load());
  assert.equal(r.entries.map((e) => e.name), Object.entries(TOPIC_CONFIGS).filter(([, s]) => !('describedWhenSet' in s)).map(([n]) => n).sort());
});

// ---- properties files ------------------------------------------------------------------------

test('properties parsing: comments, separators, trimming, continuation, escapes', () => {
  const text = [
    '# a comment',
    '   ! another comment',
    '',
    'a=1',
    '  b : two  ',
    'c three',
    'd=first,\\',
    '    second,\\',
    '\tthird',
    'e=ends with backslash\\\\',
    'f=tab\\there \\u0041',
    'g',
    'h = x=y:z',
    'key\\=with\\:seps = v',
  ].join('\n');
  const p = parseProperties(text);
  assert.equal(
    p.map((x) => [x.key, x.value, x.line]),
    [
      ['a', '1', 4],
      ['b', 'two', 5],
      ['c', 'three', 6],
      ['d', 'first,second,third', 7],
      ['e', 'ends with backslash\\', 10],
      ['f', 'tab\there A', 11],
      ['g', '', 12],
      ['h', 'x=y:z', 13],
      ['key=with:seps', 'v', 14],
    ],
  );
  // A '#' at the start of a continuation line is data, not a comment; CRLF works.
  assert.equal(parseProperties('x=a\\\r\n#b\r\ny=2\r\n').map((q) => [q.key, q.value]), [['x', 'a#b'], ['y', '2']]);
});

test('loads a Kafka-style server.properties file', () => {
  withFile(
    [
      '# Kafka KRaft combined-mode example',
      'process.roles=broker,controller',
      'node.id=7',
      'controller.quorum.voters=7@localhost:9093',
      'listeners=PLAINTEXT://:9092,CONTROLLER://:9093',
      'inter.broker.listener.name=PLAINTEXT',
      'advertised.listeners=PLAINTEXT://broker.example:9092',
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
      'num.network.threads=3',
      'num.io.threads=8',
      'socket.send.buffer.bytes=102400',
      'socket.receive.buffer.bytes=102400',
      'socket.request.max.bytes=104857600',
      'log.dirs=/tmp/kraft-combined-logs',
      'num.partitions=3',
      'num.recovery.threads.per.data.dir=1',
      'offsets.topic.replication.factor=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'log.retention.hours=168',
      'log.segment.bytes = 1073741824',
      'log.retention.check.interval.ms=300000',
      'samsa.flush.on.acks.all: TRUE',
    ].join('\n'),
    (file) => {
      const c = load({ argv: ['--config', file] });
      assert.is(c.configFile, file);
      assert.is(c['node.id'], 7);
      assert.equal(c['process.roles'], ['broker', 'controller']);
      assert.equal(c['log.dirs'], ['/tmp/kraft-combined-logs']);
      assert.is(c['num.partitions'], 3);
      assert.is(c['offsets.topic.replication.factor'], 1);
      assert.is(c['samsa.flush.on.acks.all'], true);
      assert.is(c.explicit['num.partitions']!.origin, 'file');
      assert.is(c.explicit['num.partitions']!.where, `${file}:16`);
      // Controller listeners are neither opened for clients nor advertised.
      assert.equal(brokerListeners(c), [{ name: 'PLAINTEXT', host: '', port: 9092 }]);
      assert.equal(advertisedListeners(c), [{ name: 'PLAINTEXT', host: 'broker.example', port: 9092 }]);
      assert.is(listenerSecurityProtocol(c, 'controller'), 'PLAINTEXT');
    },
  );
});

test('config file: positional name, --config=, relative to cwd, unreadable file', () => {
  withFile('num.partitions=4\n', (file) => {
    assert.is(load({ argv: [file] })['num.partitions'], 4);
    assert.is(load({ argv: [`--config=${file}`] })['num.partitions'], 4);
    assert.is(load({ argv: ['--config', path.basename(file)], cwd: path.dirname(file) })['num.partitions'], 4);
  });
  throwsConfig(() => load({ argv: ['--config', '/nonexistent/samsa.properties'] }), /cannot read config file '\/nonexistent\/samsa.properties'/);
  throwsConfig(() => load({ argv: ['a.properties', 'b.properties'] }), /more than one config file/);
});

test('argument parsing', () => {
  assert.equal(parseConfigArgs(['--override', 'a.b=1', '--override=c=d=e', '--config', 'f']), {
    configFile: 'f',
    overrides: [{ key: 'a.b', value: '1' }, { key: 'c', value: 'd=e' }],
  });
  throwsConfig(() => parseConfigArgs(['--override']), /--override needs a value/);
  throwsConfig(() => parseConfigArgs(['--override', 'novalue']), /--override expects key=value, got 'novalue'/);
  throwsConfig(() => parseConfigArgs(['--verbose']), /unknown argument '--verbose'/);
});

// ---- environment ---------------------------------------------------------------------------

test('environment variable names map like the apache/kafka image', () => {
  assert.is(envVarToSetting('KAFKA_LOG_DIRS'), 'log.dirs');
  assert.is(envVarToSetting('KAFKA_NODE_ID'), 'node.id');
  assert.is(envVarToSetting('KAFKA_FOO__BAR'), 'foo_bar');
  assert.is(envVarToSetting('KAFKA_FOO___BAR_BAZ'), 'foo-bar.baz');
  assert.is(envVarToSetting('KAFKA_SAMSA_FLUSH_ON_ACKS_ALL'), 'samsa.flush.on.acks.all');
  assert.is(envVarToSetting('KAFKA_HEAP_OPTS'), null);
  assert.is(envVarToSetting('KAFKA_OPTS'), null);
  assert.is(envVarToSetting('PATH'), null);
});

test('environment variables set settings; launcher variables are ignored', () => {
  const c = load({
    env: {
      KAFKA_LOG_DIRS: '/var/lib/samsa',
      KAFKA_NUM_PARTITIONS: '6',
      KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://kafka:9092',
      KAFKA_HEAP_OPTS: '-Xmx1G',
      KAFKA_OPTS: '-Dfoo',
      KAFKA_JVM_PERFORMANCE_OPTS: '-server',
      KAFKA_LOG4J_OPTS: 'x',
      KAFKA_GC_LOG_OPTS: 'x',
      KAFKA_JMX_OPTS: 'x',
      PATH: '/usr/bin',
      CLUSTER_ID: 'MkU3OEVBNTcwNTJENDM2Qk',
    },
  });
  assert.equal(c['log.dirs'], ['/var/lib/samsa']);
  assert.is(c['num.partitions'], 6);
  assert.is(c['cluster.id'], 'MkU3OEVBNTcwNTJENDM2Qk');
  assert.is(c.explicit['num.partitions']!.origin, 'env');
  assert.is(c.explicit['num.partitions']!.where, 'KAFKA_NUM_PARTITIONS');
  assert.equal(advertisedListeners(c), [{ name: 'PLAINTEXT', host: 'kafka', port: 9092 }]);
});

test('an unknown KAFKA_ variable is an error naming it', () => {
  throwsConfig(() => load({ env: { KAFKA_FOO_BAR: 'x' } }), /unknown setting 'foo\.bar' \(from environment variable KAFKA_FOO_BAR\)/);
  throwsConfig(() => load({ env: { KAFKA_LOG_DIRZ: 'x' } }), /did you mean 'log\.dirs'\?/);
});

// ---- precedence ----------------------------------------------------------------------------

test('precedence: flags > env > file > defaults', () => {
  withFile('num.partitions=2\ndefault.replication.factor=2\nmessage.max.bytes=2000\n', (file) => {
    const c = load({
      argv: ['--config', file, '--override', 'num.partitions=4'],
      env: { KAFKA_NUM_PARTITIONS: '3', KAFKA_DEFAULT_REPLICATION_FACTOR: '3' },
    });
    assert.is(c['num.partitions'], 4);
    assert.is(c['default.replication.factor'], 3);
    assert.is(c['message.max.bytes'], 2000);
    assert.is(c['fetch.max.bytes'], 57671680);
    assert.is(c.explicit['num.partitions']!.origin, 'flag');
    assert.is(c.explicit['default.replication.factor']!.origin, 'env');
    assert.is(c.explicit['message.max.bytes']!.origin, 'file');
    assert.is(c.explicit['fetch.max.bytes'], undefined);
  });
  // The last of repeated overrides wins.
  assert.is(load({ argv: ['--override', 'num.partitions=2', '--override=num.partitions=5'] })['num.partitions'], 5);
});

// ---- errors --------------------------------------------------------------------------------

test('unknown settings are errors naming the key, the source and a suggestion', () => {
  throwsConfig(() => load({ argv: ['--override', 'log.dirz=/x'] }), /^unknown setting 'log\.dirz' \(from --override\); did you mean 'log\.dirs'\?$/);
  withFile('# x\nnum.partitionz=3\n', (file) => {
    throwsConfig(() => load({ argv: [file] }), new RegExp(`unknown setting 'num\\.partitionz' \\(from ${file.replace(/[.]/g, '\\.')}:2\\); did you mean 'num\\.partitions'\\?`));
  });
  throwsConfig(() => load({ argv: ['--override', 'retention.ms=1000'] }), /'retention\.ms' is a topic-level config, its broker-wide default is 'log\.retention\.ms'/);
  throwsConfig(() => load({ argv: ['--override', 'zookeeper.connect=localhost:2181'] }), /unknown setting 'zookeeper\.connect'/);
});

test('invalid values are errors naming the key, the value and the source', () => {
  throwsConfig(() => load({ argv: ['--override', 'num.partitions=abc'] }), /^invalid value 'abc' for setting 'num\.partitions' \(from --override\): Not a number of type INT$/);
  throwsConfig(() => load({ argv: ['--override', 'num.partitions=0'] }), /Value must be at least 1/);
  throwsConfig(() => load({ argv: ['--override', 'num.partitions=2147483648'] }), /Not a number of type INT/);
  throwsConfig(() => load({ env: { KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'yes' } }), /'auto\.create\.topics\.enable' \(from environment variable KAFKA_AUTO_CREATE_TOPICS_ENABLE\): Expected value to be either true or false/);
  throwsConfig(() => load({ argv: ['--override', 'compression.type=brotli'] }), /String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer/);
  throwsConfig(() => load({ argv: ['--override', 'log.cleanup.policy=delete,shred'] }), /String must be one of: compact, delete/);
  throwsConfig(() => load({ argv: ['--override', 'log.retention.bytes=9223372036854775808'] }), /Not a number of type LONG/);
  throwsConfig(() => load({ argv: ['--override', 'log.cleaner.min.cleanable.ratio=1.5'] }), /Value must be no more than 1/);
  throwsConfig(() => load({ argv: ['--override', 'offsets.topic.replication.factor=40000'] }), /Not a number of type SHORT/);
  throwsConfig(() => load({ argv: ['--override', 'cluster.id=my-cluster'] }), /'cluster\.id'.*URL-safe base64/);
  throwsConfig(() => load({ argv: ['--override', 'listeners=localhost:9092'] }), /'listeners'.*Unable to parse localhost:9092/);
  throwsConfig(() => load({ argv: ['--override', 'listeners=INTERNAL://:9092'] }), /no security protocol defined for listener INTERNAL/);
  throwsConfig(() => load({ argv: ['--override', 'advertised.listeners=PLAINTEXT://0.0.0.0:9092'] }), /nonroutable meta-address 0\.0\.0\.0/);
  throwsConfig(() => load({ argv: ['--override', 'node.id=2', '--override', 'broker.id=3'] }), /'broker\.id' \(3, from --override\) must equal 'node\.id' \(2/);
  throwsConfig(() => load({ argv: ['--override', 'group.min.session.timeout.ms=7000', '--override', 'group.max.session.timeout.ms=6000'] }), /must not exceed/);
});

// ---- synonyms and derived values -------------------------------------------------------------

test('retention: log.retention.ms > minutes > hours', () => {
  assert.is(load({ argv: ['--override', 'log.retention.hours=1'] })['log.retention.ms'], 3600000);
  assert.is(load({ argv: ['--override', 'log.retention.hours=1', '--override', 'log.retention.minutes=5'] })['log.retention.ms'], 300000);
  assert.is(
    load({ argv: ['--override', 'log.retention.hours=1', '--override', 'log.retention.minutes=5', '--override', 'log.retention.ms=1234'] })['log.retention.ms'],
    1234,
  );
  // Across sources the group rule still holds: a file's ms beats an environment hours.
  withFile('log.retention.ms=5000\n', (file) => {
    assert.is(load({ argv: [file], env: { KAFKA_LOG_RETENTION_HOURS: '2' } })['log.retention.ms'], 5000);
  });
  // Negative anywhere in the group means unlimited (-1).
  assert.is(load({ argv: ['--override', 'log.retention.hours=-1'] })['log.retention.ms'], -1);
  assert.is(load({ argv: ['--override', 'log.retention.ms=-5'] })['log.retention.ms'], -1);
});

test('roll, jitter, flush, node.id and log.dirs synonyms', () => {
  const c = load({ argv: ['--override', 'log.roll.hours=2', '--override', 'log.roll.jitter.hours=1', '--override', 'log.flush.scheduler.interval.ms=3000'] });
  assert.is(c['log.roll.ms'], 7200000);
  assert.is(c['log.roll.jitter.ms'], 3600000);
  assert.is(c['log.flush.interval.ms'], 3000);
  assert.is(load({ argv: ['--override', 'log.roll.ms=10', '--override', 'log.roll.hours=2'] })['log.roll.ms'], 10);
  assert.is(load({ argv: ['--override', 'log.flush.interval.ms=100'] })['log.flush.interval.ms'], 100);
  assert.is(load({ env: { KAFKA_BROKER_ID: '5' } })['node.id'], 5);
  assert.is(load({ argv: ['--override', 'broker.id=5', '--override', 'node.id=5'] })['node.id'], 5);
  assert.equal(load({ argv: ['--override', 'log.dir=logs'] })['log.dirs'], [path.resolve(CWD, 'logs')]);
  assert.equal(load({ argv: ['--override', 'log.dir=logs', '--override', 'log.dirs=a, b'] })['log.dirs'], [path.resolve(CWD, 'a'), path.resolve(CWD, 'b')]);
});

test('long values: Long.MAX is clamped to Number.MAX_SAFE_INTEGER and shown as Long.MAX', () => {
  const c = load({ argv: ['--override', 'log.flush.interval.messages=9223372036854775807', '--override', 'log.retention.bytes=-9223372036854775808'] });
  assert.is(c['log.flush.interval.messages'], Number.MAX_SAFE_INTEGER);
  assert.is(c['log.retention.bytes'], -Number.MAX_SAFE_INTEGER);
  const d = describeBrokerConfig(c);
  assert.is(entry(d, 'log.flush.interval.messages').value, '9223372036854775807');
  assert.is(entry(d, 'log.retention.bytes').value, '-9223372036854775808');
  assert.is(load({ argv: ['--override', 'log.retention.bytes=123456789012'] })['log.retention.bytes'], 123456789012);
});

// ---- listeners -----------------------------------------------------------------------------

test('parseListeners', () => {
  assert.equal(parseListeners('PLAINTEXT://:9092,INTERNAL://127.0.0.1:9093'), [
    { name: 'PLAINTEXT', host: '', port: 9092 },
    { name: 'INTERNAL', host: '127.0.0.1', port: 9093 },
  ]);
  assert.equal(parseListeners(' plaintext://[::1]:0 , SASL_PLAINTEXT://my-host.local:9094'), [
    { name: 'PLAINTEXT', host: '::1', port: 0 },
    { name: 'SASL_PLAINTEXT', host: 'my-host.local', port: 9094 },
  ]);
  assert.equal(parseListeners(''), []);
  assert.throws(() => parseListeners('PLAINTEXT://:9092,PLAINTEXT://:9093'), /different name/);
  assert.throws(() => parseListeners('A://:9092,B://:9092'), /different port/);
  assert.throws(() => parseListeners('PLAINTEXT://:99999'), /Invalid port/);
  assert.throws(() => parseListeners('PLAINTEXT:/:9092'), /Unable to parse/);
  // Two listeners on port 0 are fine: each gets its own free port.
  assert.is(parseListeners('A://:0,B://:0').length, 2);
});

test('advertisedListeners: derived from listeners, wildcard hosts become localhost, port 0 from bound ports', () => {
  const c = load({
    argv: [
      '--override', 'listeners=PLAINTEXT://0.0.0.0:0,INTERNAL://:9093,CONTROLLER://:9094',
      '--override', 'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT',
      '--override', 'controller.listener.names=CONTROLLER',
    ],
  });
  assert.equal(advertisedListeners(c), [
    { name: 'PLAINTEXT', host: 'localhost', port: 0 },
    { name: 'INTERNAL', host: 'localhost', port: 9093 },
  ]);
  assert.equal(advertisedListeners(c, new Map([['PLAINTEXT', 41234]])), [
    { name: 'PLAINTEXT', host: 'localhost', port: 41234 },
    { name: 'INTERNAL', host: 'localhost', port: 9093 },
  ]);
  assert.is(listenerSecurityProtocol(c, 'INTERNAL'), 'SASL_PLAINTEXT');
  assert.is(listenerSecurityProtocol(c, 'SSL'), 'SSL');
  assert.is(listenerSecurityProtocol(c, 'OTHER'), null);
  // An empty advertised.listeners means "not set".
  assert.is(load({ argv: ['--override', 'advertised.listeners='] })['advertised.listeners'], null);
  throwsConfig(() => load({ argv: ['--override', 'listeners=CONTROLLER://:9093', '--override', 'controller.listener.names=CONTROLLER', '--override', 'listener.security.protocol.map=CONTROLLER:PLAINTEXT'] }), /no listener for clients/);
});

// ---- topic configs -------------------------------------------------------------------------

test('topic config defaults come from Kafka when the broker sets nothing', () => {
  const { values, entries } = resolveTopicConfig(load());
  assert.equal(values['cleanup.policy'], ['delete']);
  assert.is(values['compression.type'], 'producer');
  assert.is(values['retention.ms'], 604800000);
  assert.is(values['retention.bytes'], -1);
  assert.is(values['segment.bytes'], 1073741824);
  assert.is(values['segment.ms'], 604800000);
  assert.is(values['max.message.bytes'], 1048588);
  assert.is(values['message.timestamp.type'], 'CreateTime');
  assert.is(values['min.insync.replicas'], 1);
  assert.is(values['flush.messages'], LONG_MAX);
  assert.is(values['flush.ms'], LONG_MAX);
  assert.is(values['index.interval.bytes'], 4096);
  assert.is(values['segment.index.bytes'], 10485760);
  assert.is(values['file.delete.delay.ms'], 60000);
  assert.is(values['delete.retention.ms'], 86400000);
  assert.is(values['min.compaction.lag.ms'], 0);
  assert.is(values['max.compaction.lag.ms'], LONG_MAX);
  assert.is(values['min.cleanable.dirty.ratio'], 0.5);
  assert.is(values['segment.jitter.ms'], 0);
  assert.is(values['unclean.leader.election.enable'], false);
  assert.is(values['message.timestamp.before.max.ms'], LONG_MAX);
  assert.is(values['message.timestamp.after.max.ms'], 3600000);
  assert.is(values.preallocate, false);

  const r = entry(entries, 'retention.ms');
  assert.equal(r, {
    name: 'retention.ms',
    value: '604800000',
    readOnly: false,
    isDefault: true,
    configSource: ConfigSource.DEFAULT_CONFIG,
    isSensitive: false,
    // Kafka 4.4 lists no synonym here: its list starts at the primary name (log.retention.ms),
    // which has no default, so log.retention.hours is dropped (checked against a real broker).
    synonyms: [],
    configType: ConfigType.LONG,
    documentation: TOPIC_CONFIGS['retention.ms'].doc,
  });
  assert.is(entry(entries, 'min.cleanable.dirty.ratio').value, '0.5');
  assert.is(entry(entries, 'min.cleanable.dirty.ratio').configType, ConfigType.DOUBLE);
  assert.is(entry(entries, 'cleanup.policy').configType, ConfigType.LIST);
  assert.is(entry(entries, 'preallocate').configType, ConfigType.BOOLEAN);
  assert.is(entry(entries, 'segment.bytes').configType, ConfigType.INT);
  assert.is(entry(entries, 'compression.type').configType, ConfigType.STRING);
  assert.is(entry(entries, 'flush.ms').value, '9223372036854775807');
  // flush.ms: only the scheduler interval (not the primary name) has a default: no synonyms.
  assert.equal(entry(entries, 'flush.ms').synonyms, []);
  // Entries are sorted by name, as CreateTopics returns them.
  const names = entries.map((e) => e.name);
  assert.equal(names, [...names].sort());
});

test('topic configs inherit broker settings (STATIC_BROKER_CONFIG) and overrides win (DYNAMIC_TOPIC_CONFIG)', () => {
  const broker = load({ argv: ['--override', 'log.retention.hours=24', '--override', 'message.max.bytes=2000000', '--override', 'log.cleanup.policy=compact'] });
  const { values, entries } = resolveTopicConfig(broker, { 'retention.ms': '1000', 'segment.bytes': '1048576' });

  assert.is(values['retention.ms'], 1000);
  assert.is(values['segment.bytes'], 1048576);
  assert.is(values['max.message.bytes'], 2000000);
  assert.equal(values['cleanup.policy'], ['compact']);

  const retention = entry(entries, 'retention.ms');
  assert.is(retention.value, '1000');
  assert.is(retention.configSource, ConfigSource.DYNAMIC_TOPIC_CONFIG);
  assert.is(retention.isDefault, false);
  // The broker part of the list starts at log.retention.ms (unset): log.retention.hours is left out, as in Kafka 4.4.
  assert.equal(retention.synonyms, [
    { name: 'retention.ms', value: '1000', source: ConfigSource.DYNAMIC_TOPIC_CONFIG },
  ]);

  const maxBytes = entry(entries, 'max.message.bytes');
  assert.is(maxBytes.value, '2000000');
  assert.is(maxBytes.configSource, ConfigSource.STATIC_BROKER_CONFIG);
  assert.equal(maxBytes.synonyms, [
    { name: 'message.max.bytes', value: '2000000', source: ConfigSource.STATIC_BROKER_CONFIG },
    { name: 'message.max.bytes', value: '1048588', source: ConfigSource.DEFAULT_CONFIG },
  ]);

  const segBytes = entry(entries, 'segment.bytes');
  assert.is(segBytes.configSource, ConfigSource.DYNAMIC_TOPIC_CONFIG);
  assert.is(entry(entries, 'segment.ms').configSource, ConfigSource.DEFAULT_CONFIG);

  // Broker-level retention derived from log.retention.ms reaches the topic.
  const t2 = resolveTopicConfig(load({ argv: ['--override', 'log.retention.minutes=10'] }));
  assert.is(t2.values['retention.ms'], 600000);
  assert.equal(entry(t2.entries, 'retention.ms').synonyms, [], 'log.retention.minutes is not the primary synonym (Kafka drops it)');
  assert.is(entry(t2.entries, 'retention.ms').configSource, ConfigSource.DEFAULT_CONFIG);
  // segment.ms from log.roll.ms, flush.ms from log.flush.interval.ms.
  const t3 = resolveTopicConfig(load({ argv: ['--override', 'log.roll.ms=60000', '--override', 'log.flush.interval.ms=50'] }));
  assert.is(t3.values['segment.ms'], 60000);
  assert.is(t3.values['flush.ms'], 50);
});

test('resolveTopicConfig rejects invalid stored overrides', () => {
  throwsConfig(() => resolveTopicConfig(load(), { 'retention.ms': 'soon' }), /topic config 'retention\.ms': Invalid value soon for configuration retention\.ms: Not a number of type LONG/);
  throwsConfig(() => resolveTopicConfig(load(), { 'retention.msx': '1' }), /Unknown topic config name: retention\.msx/);
});

test('validateTopicConfig messages', () => {
  assert.is(validateTopicConfig('retention.ms', '1000'), null);
  assert.is(validateTopicConfig('retention.ms', '-1'), null);
  assert.is(validateTopicConfig('cleanup.policy', 'compact,delete'), null);
  assert.is(validateTopicConfig('cleanup.policy', ''), null);
  assert.is(validateTopicConfig('min.cleanable.dirty.ratio', '0.1'), null);
  assert.is(validateTopicConfig('message.timestamp.type', 'LogAppendTime'), null);
  assert.is(validateTopicConfig('unclean.leader.election.enable', 'TRUE'), null);
  assert.is(validateTopicConfig('nope', '1'), 'Unknown topic config name: nope');
  assert.is(validateTopicConfig('retention.ms', null), 'Null value not supported for topic configs: retention.ms');
  assert.is(validateTopicConfig('retention.ms', 'x'), 'Invalid value x for configuration retention.ms: Not a number of type LONG');
  assert.is(validateTopicConfig('retention.ms', '-2'), 'Invalid value -2 for configuration retention.ms: Value must be at least -1');
  assert.is(validateTopicConfig('segment.ms', '0'), 'Invalid value 0 for configuration segment.ms: Value must be at least 1');
  assert.is(validateTopicConfig('segment.bytes', '10'), 'Invalid value 10 for configuration segment.bytes: Value must be at least 14');
  assert.is(validateTopicConfig('max.message.bytes', '3000000000'), 'Invalid value 3000000000 for configuration max.message.bytes: Not a number of type INT');
  assert.is(validateTopicConfig('compression.type', 'brotli'), 'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer');
  assert.is(validateTopicConfig('cleanup.policy', 'compact,shred'), 'Invalid value compact,shred for configuration cleanup.policy: String must be one of: compact, delete');
  assert.is(validateTopicConfig('preallocate', 'maybe'), 'Invalid value maybe for configuration preallocate: Expected value to be either true or false');
  assert.is(validateTopicConfig('min.cleanable.dirty.ratio', '2'), 'Invalid value 2 for configuration min.cleanable.dirty.ratio: Value must be no more than 1');
  assert.is(validateTopicConfig('compression.gzip.level', '0'), 'Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1');
  assert.ok(isTopicConfigName('segment.ms'));
  assert.not.ok(isTopicConfigName('log.segment.bytes'));
  assert.is(configTypeOf('segment.ms', 'topic'), ConfigType.LONG);
  assert.is(configTypeOf('offsets.topic.replication.factor', 'broker'), ConfigType.SHORT);
  assert.is(configTypeOf('nope', 'broker'), ConfigType.UNKNOWN);
});

// ---- broker describe -----------------------------------------------------------------------

test('describeBrokerConfig: sources, synonyms, read-only', () => {
  withFile('num.partitions=3\nlog.retention.hours=24\n', (file) => {
    const c = load({ argv: [file, '--override', 'auto.create.topics.enable=false'] });
    const d = describeBrokerConfig(c);
    const np = entry(d, 'num.partitions');
    assert.is(np.value, '3');
    assert.is(np.configSource, ConfigSource.STATIC_BROKER_CONFIG);
    assert.is(np.readOnly, true);
    assert.is(np.isDefault, false);
    assert.is(np.configType, ConfigType.INT);
    assert.equal(np.synonyms, [
      { name: 'num.partitions', value: '3', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'num.partitions', value: '1', source: ConfigSource.DEFAULT_CONFIG },
    ]);
    assert.is(entry(d, 'auto.create.topics.enable').value, 'false');
    assert.is(entry(d, 'auto.create.topics.enable').configSource, ConfigSource.STATIC_BROKER_CONFIG);
    const fetch = entry(d, 'fetch.max.bytes');
    assert.is(fetch.value, '57671680');
    assert.is(fetch.configSource, ConfigSource.DEFAULT_CONFIG);
    assert.is(fetch.isDefault, true);
    // A derived setting that is not set itself shows null with no synonyms and DEFAULT_CONFIG
    // (Kafka 4.4 with log.retention.hours set: log.retention.ms null, source 5, synonyms []).
    const rms = entry(d, 'log.retention.ms');
    assert.is(rms.value, null);
    assert.is(rms.configSource, ConfigSource.DEFAULT_CONFIG);
    assert.equal(rms.synonyms, []);
    assert.is(entry(d, 'advertised.listeners').value, null);
    assert.is(entry(d, 'log.dirs').value, path.resolve(CWD, 'data'));
    assert.equal(d.map((e) => e.name), Object.keys(BROKER_SETTINGS).sort());
  });
});

test.run();
