/**
 * The test control over HTTP (`samsa start --control`, startBroker({ httpControl: true })):
 * its JSON calls from fetch, and the Python client (compat-tests/control-clients/python) driving
 * confluent-kafka-python against the broker: injected Produce errors retried by the client and
 * seen in a recording, a held request released, waits, resets, and the refusals (unknown API or
 * error names, unknown ids, a wait that times out).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { VENV_PYTHON, venvPython } from '../support/external.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = existsSync(VENV_PYTHON) ? null : `no ${VENV_PYTHON} (tools/ensure-test-deps.sh)`;
if (missing && IN_CI) throw new Error(`control-http: required under CI: ${missing}`);
const CLIENTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../compat-tests/control-clients');

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ httpControl: true, 'num.partitions': 1 });
});

test.after(async () => {
  await b?.stop();
});

async function control(method: string, p: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${b.httpUrl}/control${p}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

test('JSON calls: an injected error reaches kafkajs, which retries; the recording shows both answers', async () => {
  const rec = await control('POST', '/record', { apis: ['Produce'] });
  assert.is(rec.status, 200);
  const rule = await control('POST', '/inject-error', { api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER', count: 1 });
  assert.is(rule.status, 200);
  const kafka = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { initialRetryTime: 50, retries: 5 } });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'ctl-http', messages: [{ value: 'v' }] });
  await producer.disconnect();
  const exchanges = (await control('GET', `/recordings/${rec.json.id}`)).json.exchanges as any[];
  const produces = exchanges.filter((x) => x.apiName === 'Produce');
  assert.is(produces.length, 2);
  assert.is(produces[0].injectedError, 6);
  assert.is(produces[1].injectedError, undefined);
  assert.is((await control('DELETE', `/rules/${rule.json.id}`)).json.hits, 1);
  assert.equal((await control('POST', '/wait/high-watermark', { topic: 'ctl-http', partition: 0, offset: 1, timeoutMs: 5000 })).json, {});
  const conns = (await control('GET', '/connections')).json;
  assert.ok(conns.accepted >= 1);
});

test('refusals: unknown names, ids and calls; a wait that runs out answers 408', async () => {
  const badApi = await control('POST', '/inject-error', { api: 'Produse', error: 'NOT_LEADER_OR_FOLLOWER' });
  assert.is(badApi.status, 400);
  assert.match(badApi.json.error, /Produse/);
  assert.is((await control('POST', '/inject-error', { api: 'Produce' })).status, 400);
  assert.is((await control('DELETE', '/rules/999')).status, 404);
  assert.is((await control('POST', '/nonsense', {})).status, 404);
  const late = await control('POST', '/wait/high-watermark', { topic: 'ctl-http', partition: 0, offset: 1000, timeoutMs: 200 });
  assert.is(late.status, 408);
  assert.equal((await control('POST', '/reset', {})).json, {});
});

test('a broker without --control has no /control', async () => {
  const plain = await startBroker({ http: true });
  try {
    assert.is((await fetch(`${plain.httpUrl}/control/connections`)).status, 404);
  } finally {
    await plain.stop();
  }
});

const PYTHON = String.raw`
import sys, json
sys.path.insert(0, sys.argv[3])
from samsa_control import SamsaControl, ControlError
from confluent_kafka import Producer, Consumer

bootstrap, url = sys.argv[1], sys.argv[2]
control = SamsaControl(url)
out = {}
rec = control.record(apis=["Produce"])
rule = control.inject_error("Produce", "NOT_LEADER_OR_FOLLOWER", count=2)
p = Producer({"bootstrap.servers": bootstrap, "retry.backoff.ms": 50, "linger.ms": 0})
reports = []
p.produce("ctl-py", value=b"hello", on_delivery=lambda err, msg: reports.append(None if err is None else err.name()))
p.flush(30)
out["delivered"] = reports
produces = [x for x in control.exchanges(rec) if x["apiName"] == "Produce"]
out["injected"] = [x.get("injectedError") for x in produces]
out["hits"] = control.remove_rule(rule)
control.stop_recording(rec)
control.wait_for_high_watermark("ctl-py", 0, 1, timeout_ms=5000)

hold = control.hold_next_request(api="Fetch")
c = Consumer({"bootstrap.servers": bootstrap, "group.id": "ctl-py-g", "auto.offset.reset": "earliest"})
c.subscribe(["ctl-py"])
got = None
held = None
for _ in range(30):
    m = c.poll(0.5)
    if held is None:
        try:
            held = control.wait_held(hold, timeout_ms=200)
            out["held"] = held["apiName"]
            control.release(hold)
        except ControlError as e:
            if e.status != 408:
                raise
    if m is not None and not m.error():
        got = m.value().decode()
        break
out["consumed"] = got
c.commit(asynchronous=False)
c.close()
control.wait_for_committed_offset("ctl-py-g", "ctl-py", 0, 1, timeout_ms=5000)
try:
    control.inject_error("NoSuchApi", "UNKNOWN_SERVER_ERROR")
    out["refused"] = None
except ControlError as e:
    out["refused"] = e.status
control.reset()
print(json.dumps(out), flush=True)
`;

test('the Python client with confluent-kafka-python: injected errors retried, a held Fetch released, waits', async () => {
  if (missing) {
    console.log(`skipped: ${missing}`);
    return;
  }
  const r = await venvPython(PYTHON, [b.bootstrap, b.httpUrl!, path.join(CLIENTS, 'python')], { timeoutMs: 90_000 });
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.equal(out.delivered, [null]);
  assert.equal(out.injected, [6, 6, null]);
  assert.is(out.hits, 2);
  assert.is(out.held, 'Fetch');
  assert.is(out.consumed, 'hello');
  assert.is(out.refused, 400);
});

test.run();
