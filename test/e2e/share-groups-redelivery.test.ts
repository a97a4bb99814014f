/**
 * Random acknowledgements end to end (issue 23 item 5): 5,000 records, two confluent-kafka
 * ShareConsumers deciding at random (seeded per record) to ACCEPT, REJECT or RELEASE on a first or
 * second delivery and accepting from the third; every record ends accepted or rejected within the
 * bound. librdkafka polls often enough that this passed before the fix too (4.3 s): the defect
 * itself (one run of released records per acquisition, no new records beside them; franz-go's
 * consumer ran out of time with 3,758 of 5,000) is pinned by the SharePartition unit test
 * "released records come back from every run of them". This one guards the whole path.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { venvJson } from '../support/clients.js';
import { PY_HEAD, SHARE_BROKER_CONFIG } from './share-groups-scenarios.js';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0, config: SHARE_BROKER_CONFIG });
});

test.after(async () => {
  await b?.stop();
});

test('5,000 records, random accept / reject / release: every record accepted or rejected, the released ones redelivered in bulk', async () => {
  const o = await venvJson(`127.0.0.1:${b.port}`, `${PY_HEAD}
import random, zlib
create('sg-redeliver')
group_config('sg-redeliver-g', {'share.auto.offset.reset': 'earliest'})
produce('sg-redeliver', ['r%d' % i for i in range(5000)], batch=100)
def decide(v, n):
    if n >= 3:
        return 'accept'
    return random.Random(zlib.crc32(('%s/%d' % (v, n)).encode())).choice(['accept', 'reject', 'release'])
rejected = []
class W(Worker):
    pass
ws = [Worker('w%d' % i, 'sg-redeliver-g', 'sg-redeliver', decide=decide) for i in range(2)]
def done():
    acc = {v for w in ws for v in w.accepted}
    rej = {v for w in ws for (v, _, n, _) in w.seen if decide(v, n) == 'reject'}
    return len(acc | rej) == 5000
t0 = time.time()
try:
    wait_until(done, 90, 'every record accepted or rejected')
    finished = True
except SystemExit:
    finished = False
seconds = round(time.time() - t0, 2)
settle(ws)
acc = {v for w in ws for v in w.accepted}
rej = {v for w in ws for (v, _, n, _) in w.seen if decide(v, n) == 'reject'}
released = sum(1 for w in ws for (v, _, n, _) in w.seen if decide(v, n) == 'release')
out(finished=finished, settled=len(acc | rej), accepted=len(acc), rejected=len(rej), released=released, seconds=seconds, errors=[w.errors for w in ws])
`, 'random acknowledgements', 150_000);
  console.log(`share groups redelivery: ${o.accepted} accepted, ${o.rejected} rejected, ${o.released} releases redelivered, in ${o.seconds} s`);
  assert.ok(o.finished, `every record settled in time: ${o.settled} of 5000`);
  assert.is(o.settled, 5000);
  assert.ok(o.released > 500, `a good share of the records were released and came back (${o.released})`);
});

test.run();
