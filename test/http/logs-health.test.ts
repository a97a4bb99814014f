/**
 * Logs and health: samsa.log.format=json writes one JSON object per line (time, level, logger,
 * message, fields); the request logger (kafka.request.logger) writes a debug line per request
 * with client id, API, version and duration; a closed connection logs why; HTTP requests are
 * logged at debug (samsa.http); /health/ready's
 * answer for a stopping or unregistered broker.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import kafkajs from 'kafkajs';
import { createLogger, namedLogger, setLogFormat } from '../../src/logger.js';
import { startBroker } from '../../src/testing/start-broker.js';
import { readiness } from '../../src/http/health.js';
import type { Broker } from '../../src/broker/broker.js';

const { Kafka, logLevel } = kafkajs;

test('json format: one object per line with time, level, logger, message and the fields', () => {
  const lines: string[] = [];
  const logger = createLogger('debug', (l) => lines.push(l), { format: 'json' });
  logger.info('hello', { topic: 't', n: 3n, message: 'clash' });
  logger.error('failed', new Error('boom'));
  namedLogger(logger, 'kafka.request.logger').debug('req', { api: 'Produce' });
  logger.level = 'info';
  namedLogger(logger, 'kafka.request.logger').debug('hidden');
  assert.is(lines.length, 3);
  const [a, e, r] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.is(a.level, 'info');
  assert.is(a.logger, 'samsa');
  assert.is(a.message, 'hello');
  assert.is(a.topic, 't');
  assert.is(a.n, '3');
  assert.is(a['field.message'], 'clash', 'a field named like a reserved key is prefixed');
  assert.ok(!Number.isNaN(Date.parse(a.time as string)));
  assert.is(e.error, 'boom');
  assert.match(e.stack as string, /boom/);
  assert.is(r.logger, 'kafka.request.logger');
  assert.is(r.api, 'Produce');
});

test('text format keeps its shape and appends fields as k=v', () => {
  const lines: string[] = [];
  const logger = createLogger('info', (l) => lines.push(l));
  setLogFormat(logger, 'text');
  logger.warn('careful', { topic: 'a b', n: 1 });
  assert.match(lines[0], /^\[\d{4}-\d\d-\d\dT[^\]]+\] WARN careful topic="a b" n=1$/);
});

test('a broker with samsa.log.format=json logs each request at debug and why a connection closed', async () => {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(...String(chunk).split('\n').filter((l) => l !== ''));
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  const b = await startBroker({ storage: 'memory', logLevel: 'debug', http: true, config: { 'samsa.log.format': 'json' } });
  try {
    assert.is((await fetch(`${b.httpUrl}/health/live`)).status, 200);
    const admin = new Kafka({ clientId: 'json-logs-client', brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.listTopics();
    await admin.disconnect();
    for (let i = 0; i < 500 && (b.broker.socketServer?.connectionCount ?? 0) > 0; i++) await new Promise((r) => setTimeout(r, 10));
  } finally {
    await b.stop();
    process.stderr.write = write;
  }
  const objects = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(objects.length > 0 && objects.length === lines.filter((l) => l.trim() !== '').length, 'every line is one JSON object');
  const req = objects.find((o) => o.logger === 'kafka.request.logger' && o.api === 'Metadata' && o.clientId === 'json-logs-client');
  assert.ok(req, 'a request line for Metadata from the client');
  assert.is(req!.level, 'debug');
  assert.is(typeof req!.version, 'number');
  assert.is(typeof req!.durationMs, 'number');
  const closed = objects.find((o) => typeof o.reason === 'string' && /closed/.test(String(o.message)));
  assert.ok(closed, 'a closed connection is logged with its reason');
  assert.is(closed!.reason, 'closed by the client');
  const access = objects.find((o) => o.logger === 'samsa.http' && o.path === '/health/live');
  assert.ok(access, 'the HTTP request is logged');
  assert.is(access!.status, 200);
  assert.is(access!.method, 'GET');
});

function capture(): { res: ServerResponse; out: { status: number; body: string } } {
  const out = { status: 0, body: '' };
  const res = {
    statusCode: 0, setHeader() {}, end(this: { statusCode: number }, body: string) { out.status = this.statusCode; out.body = body; },
  } as unknown as ServerResponse;
  return { res, out };
}

test('/health/ready is 503 while starting, stopping or unregistered, 200 otherwise', () => {
  const broker = (over: Partial<Record<string, unknown>>) => ({ stopping: false, registered: true, nodeId: 1, logs: { allLogs: () => [] }, ...over }) as unknown as Broker;
  const cases: [Partial<Record<string, unknown>>, boolean, number, string][] = [
    [{}, true, 200, 'ready'],
    [{}, false, 503, 'starting'],
    [{ stopping: true }, true, 503, 'stopping'],
    [{ registered: false }, true, 503, 'not registered'],
  ];
  for (const [over, serving, status, reason] of cases) {
    const { res, out } = capture();
    readiness(broker(over), serving, res);
    assert.is(out.status, status, reason);
    const body = JSON.parse(out.body) as { reasons: string[] };
    if (status !== 200) assert.ok(body.reasons.some((r) => r.includes(reason)), `${reason}: ${out.body}`);
  }
});

test.run();
