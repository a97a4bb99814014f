/**
 * Long-running confluent-kafka clients (the test venv's, tools/ensure-test-deps.sh) that make a
 * group and stay in it while a test looks at it: `pythonUntilLine` runs a script until its first
 * JSON line; `startGroup` starts one of GROUP_PY's kinds:
 *
 * - 'consumer': `members` KIP-848 consumers (group.protocol=consumer) on a topic of `members`
 *   partitions; they read the `records` produced, commit, print {seen}, then keep polling
 *   (without committing again).
 * - 'share': one ShareConsumer (explicit acknowledgement) on a one-partition topic; from the
 *   `records` produced in one batch it acquires them all, rejects the second, accepts the third,
 *   commits those acknowledgements, prints {acquired: offsets}, and holds the others (its
 *   heartbeats go on in librdkafka's background thread).
 */
import { spawn } from 'node:child_process';
import { VENV_PYTHON } from './external.js';

/** Runs a venv Python script until its first JSON line, which it resolves with; `stop()` SIGKILLs it. */
export function pythonUntilLine(script: string, args: string[]): { line: Promise<Record<string, any>>; stop(): void } {
  const child = spawn(VENV_PYTHON, ['-c', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const line = new Promise<Record<string, any>>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.on('exit', (code) => reject(new Error(`exited (${code}) before its line: ${out}\n${err.slice(-3000)}`)));
  });
  return { line, stop: () => void child.kill('SIGKILL') };
}

export const GROUP_PY = `
import sys, json, time
from confluent_kafka import Producer, Consumer, ShareConsumer, AcknowledgeType
from confluent_kafka.admin import AdminClient, NewTopic, ConfigResource, ResourceType, ConfigEntry, AlterConfigOpType
bs, kind, group, topic, members, records = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
admin = AdminClient({'bootstrap.servers': bs})
partitions = members if kind == 'consumer' else 1
for f in admin.create_topics([NewTopic(topic, partitions, 1)], operation_timeout=10).values():
    f.result(15)
def out(**kw):
    print(json.dumps(kw), flush=True)
def produce():
    p = Producer({'bootstrap.servers': bs, 'linger.ms': 100})
    for i in range(records):
        p.produce(topic, value=('r%d' % i).encode(), partition=i % partitions)
    assert p.flush(15) == 0
if kind == 'consumer':
    produce()
    cs = [Consumer({'bootstrap.servers': bs, 'group.id': group, 'group.protocol': 'consumer', 'client.id': '%s-%d' % (group, i),
                    'auto.offset.reset': 'earliest', 'enable.auto.commit': False}) for i in range(members)]
    for c in cs:
        c.subscribe([topic])
    seen, end = 0, time.time() + 60
    while seen < records and time.time() < end:
        for c in cs:
            m = c.poll(0.1)
            if m is not None and m.error() is None:
                seen += 1
    for c in cs:
        try:
            c.commit(asynchronous=False)
        except Exception:
            pass
    out(seen=seen)
    while True:
        for c in cs:
            c.poll(0.2)
else:
    entries = [ConfigEntry('share.auto.offset.reset', 'earliest', incremental_operation=AlterConfigOpType.SET)]
    for f in admin.incremental_alter_configs([ConfigResource(ResourceType.GROUP, group, incremental_configs=entries)]).values():
        f.result(15)
    produce()
    c = ShareConsumer({'bootstrap.servers': bs, 'group.id': group, 'client.id': group + '-0',
                       'share.acknowledgement.mode': 'explicit', 'max.poll.records': records})
    c.subscribe([topic])
    ms, end = [], time.time() + 60
    while not ms and time.time() < end:
        ms = [m for m in c.poll(0.5) if m.error() is None]
    ms.sort(key=lambda m: m.offset())
    c.acknowledge(ms[1], AcknowledgeType.REJECT)
    c.acknowledge(ms[2], AcknowledgeType.ACCEPT)
    c.commit_sync()
    out(acquired=[m.offset() for m in ms])
    while True:
        time.sleep(1)
`;

/** Starts GROUP_PY's `kind` of group on `topic`; resolves with its line and a stop(). */
export async function startGroup(bootstrap: string, kind: 'consumer' | 'share', group: string, topic: string, opts: { members?: number; records?: number } = {}): Promise<{ line: Record<string, any>; stop(): void }> {
  const p = pythonUntilLine(GROUP_PY, [bootstrap, kind, group, topic, String(opts.members ?? 1), String(opts.records ?? 10)]);
  try {
    return { line: await p.line, stop: p.stop };
  } catch (err) {
    p.stop();
    throw err;
  }
}
