# confluent-kafka-python (librdkafka) agent for the compatibility suite.
# Reads one JSON command per line on stdin: {"id": n, "op": "...", "args": {...}}
# Writes one JSON reply per line: {"id": n, "ok": result} or {"id": n, "fail": "traceback"}.
# Kafka errors are returned as data ({"code": int, "name": str}), never raised.
# Run with /usr/bin/python3 (Debian's python3-confluent-kafka 1.7) or with the venv's python
# (confluent-kafka 2.x from PyPI). The ops marked 2.x use AdminClient calls 1.7 does not have; the
# 1.7 driver never sends them.
import sys, json, base64, time, traceback
from confluent_kafka import Producer, Consumer, TopicPartition, KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, NewTopic, ConfigResource

def b64e(b):
    return None if b is None else base64.b64encode(b).decode('ascii')

def b64d(s):
    return None if s is None else base64.b64decode(s)

def err(e):
    if e is None:
        return None
    if isinstance(e, KafkaException) and e.args and isinstance(e.args[0], KafkaError):
        e = e.args[0]
    if isinstance(e, KafkaError):
        return {'code': e.code(), 'name': e.name(), 'str': e.str()}
    return {'code': None, 'name': type(e).__name__, 'str': str(e)}

BASE = {}
producers = {}
consumers = {}

def rec_out(m):
    ts = m.timestamp()
    return {'partition': m.partition(), 'offset': m.offset(), 'timestamp': ts[1],
            'tstype': {0: None, 1: 'CreateTime', 2: 'LogAppendTime'}.get(ts[0]),
            'key': b64e(m.key()), 'value': b64e(m.value()),
            'headers': [[h[0], b64e(h[1])] for h in (m.headers() or [])]}

def produce_with(p, topic, records, timeout_s):
    reports = [None] * len(records)
    def mk(i):
        def cb(e, msg):
            ts = msg.timestamp()
            reports[i] = {'error': err(e), 'partition': msg.partition(), 'offset': msg.offset(), 'timestamp': ts[1]}
        return cb
    for i, r in enumerate(records):
        kw = {'on_delivery': mk(i), 'value': b64d(r.get('value'))}
        if r.get('partition') is not None: kw['partition'] = r['partition']
        if r.get('key') is not None: kw['key'] = b64d(r['key'])
        if r.get('headers'): kw['headers'] = [(h[0], b64d(h[1])) for h in r['headers']]
        if r.get('timestamp') is not None: kw['timestamp'] = r['timestamp']
        try:
            p.produce(topic, **kw)
        except Exception as e:
            reports[i] = {'error': err(e)}
        p.poll(0)
    left = p.flush(timeout_s)
    return {'reports': reports, 'unflushed': left}

def op_produce(a):
    conf = dict(BASE, **{'linger.ms': 5, 'message.timeout.ms': 15000, 'socket.timeout.ms': 10000})
    conf.update(a.get('config', {}))
    h = a.get('handle')
    if h and h in producers:
        p = producers[h]
    else:
        p = Producer(conf)
        if h: producers[h] = p
    return produce_with(p, a['topic'], a['records'], a.get('timeoutS', 20))

def op_read(a):
    conf = dict(BASE, **{'group.id': a.get('group', 'compat-unused'), 'enable.auto.commit': False,
            'enable.auto.offset.store': False, 'enable.partition.eof': False,
            'socket.timeout.ms': 10000, 'fetch.wait.max.ms': 100,
            'auto.offset.reset': a.get('reset', 'earliest')})
    if a.get('isolation'): conf['isolation.level'] = a['isolation']
    conf.update(a.get('config', {}))
    c = Consumer(conf)
    start = a.get('from', 'earliest')
    off = {'earliest': -2, 'latest': -1}.get(start, start) if not isinstance(start, int) else start
    c.assign([TopicPartition(a['topic'], p, off) for p in a['partitions']])
    out, errors = [], []
    deadline = time.time() + a.get('timeoutMs', 15000) / 1000.0
    while len(out) < a['count'] and time.time() < deadline:
        m = c.poll(0.2)
        if m is None: continue
        if m.error():
            errors.append(err(m.error()))
            if a.get('stopOnError'): break
            continue
        out.append(rec_out(m))
    c.close()
    return {'records': out, 'errors': errors}

def admin():
    return AdminClient(dict(BASE, **{'socket.timeout.ms': 10000}))

def op_create_topic(a):
    ad = admin()
    f = ad.create_topics([NewTopic(a['name'], num_partitions=a.get('partitions', 1), replication_factor=1, config=a.get('configs', {}))], operation_timeout=10, request_timeout=15)
    try:
        f[a['name']].result(20)
        return {'error': None}
    except Exception as e:
        return {'error': err(e)}

def op_delete_topic(a):
    ad = admin()
    f = ad.delete_topics([a['name']], operation_timeout=10, request_timeout=15)
    try:
        f[a['name']].result(20)
        return {'error': None}
    except Exception as e:
        return {'error': err(e)}

def op_describe_topic(a):
    ad = admin()
    md = ad.list_topics(topic=a['name'], timeout=10)
    t = md.topics.get(a['name'])
    if t is None:
        return {'error': {'code': 3, 'name': 'UNKNOWN_TOPIC_OR_PART', 'str': 'absent'}}
    if t.error is not None:
        return {'error': err(t.error)}
    return {'error': None, 'partitions': len(t.partitions)}

def op_describe_configs(a):
    ad = admin()
    res = ConfigResource('topic', a['topic'])
    f = ad.describe_configs([res], request_timeout=15)
    try:
        entries = f[res].result(20)
        return {'error': None, 'configs': {k: {'value': v.value, 'source': v.source} for k, v in entries.items()}}
    except Exception as e:
        return {'error': err(e)}

def op_alter_configs(a):
    ad = admin()
    res = ConfigResource('topic', a['topic'], set_config=a['set'])
    f = ad.alter_configs([res], request_timeout=15)
    try:
        f[res].result(20)
        return {'error': None}
    except Exception as e:
        return {'error': err(e)}

def admin_result(f):
    try:
        f.result(20)
        return {'error': None}
    except Exception as e:
        return {'error': err(e)}

def op_describe_topic_admin(a):
    # 2.x: AdminClient.describe_topics (DescribeTopics), not a consumer's metadata cache.
    from confluent_kafka import TopicCollection
    ad = admin()
    f = ad.describe_topics(TopicCollection([a['name']]), request_timeout=15)
    try:
        d = f[a['name']].result(20)
        return {'error': None, 'partitions': len(d.partitions)}
    except Exception as e:
        return {'error': err(e)}

def op_incremental_alter_configs(a):
    # 2.x: IncrementalAlterConfigs, one SET per key (AlterConfigs would reset the others).
    from confluent_kafka.admin import ConfigEntry, AlterConfigOpType
    ad = admin()
    entries = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in a['set'].items()]
    res = ConfigResource('topic', a['topic'], incremental_configs=entries)
    return admin_result(ad.incremental_alter_configs([res], request_timeout=15)[res])

def op_admin_list_offsets(a):
    # 2.x: AdminClient.list_offsets; one spec per partition per call (the futures are keyed by partition).
    from confluent_kafka.admin import OffsetSpec
    ad = admin()
    tp = TopicPartition(a['topic'], a['partition'])
    def one(spec):
        return ad.list_offsets({tp: spec}, request_timeout=15)[tp].result(20).offset
    out = {'earliest': one(OffsetSpec.earliest()), 'latest': one(OffsetSpec.latest())}
    for ts in a.get('timestamps', []):
        try:
            out[str(ts)] = one(OffsetSpec.for_timestamp(ts))
        except Exception as e:
            out[str(ts)] = err(e)
    return out

def op_delete_records(a):
    # 2.x: AdminClient.delete_records (added in 2.4).
    ad = admin()
    tp = TopicPartition(a['topic'], a['partition'], a['before'])
    f = ad.delete_records([tp], request_timeout=15, operation_timeout=10)
    try:
        r = list(f.values())[0].result(20)
        return {'error': None, 'lowWatermark': r.low_watermark}
    except Exception as e:
        return {'error': err(e)}

def op_list_offsets(a):
    c = Consumer(dict(BASE, **{'group.id': 'compat-unused'}))
    tp = TopicPartition(a['topic'], a['partition'])
    out = {}
    lo, hi = c.get_watermark_offsets(tp, timeout=10, cached=False)
    out['earliest'], out['latest'] = lo, hi
    for ts in a.get('timestamps', []):
        r = c.offsets_for_times([TopicPartition(a['topic'], a['partition'], ts)], timeout=10)[0]
        out[str(ts)] = r.offset if r.error is None else err(r.error)
    c.close()
    return out

def op_group_open(a):
    events = {'assignment': [], 'assigns': 0, 'revokes': 0}
    conf = dict(BASE, **{'group.id': a['group'], 'enable.auto.commit': False, 'auto.offset.reset': 'earliest',
            'session.timeout.ms': a.get('sessionTimeoutMs', 6000), 'heartbeat.interval.ms': 500,
            'fetch.wait.max.ms': 100, 'socket.timeout.ms': 10000})
    if a.get('instanceId'): conf['group.instance.id'] = a['instanceId']
    if a.get('isolation'): conf['isolation.level'] = a['isolation']
    c = Consumer(conf)
    def on_assign(cons, parts):
        events['assigns'] += 1
        events['assignment'] = sorted(p.partition for p in parts)
    def on_revoke(cons, parts):
        events['revokes'] += 1
        events['assignment'] = []
    c.subscribe([a['topic']], on_assign=on_assign, on_revoke=on_revoke)
    consumers[a['handle']] = (c, events)
    return {}

def op_group_poll(a):
    c, ev = consumers[a['handle']]
    out, errors = [], []
    deadline = time.time() + a.get('timeoutMs', 1000) / 1000.0
    while time.time() < deadline and len(out) < a.get('max', 1000):
        m = c.poll(0.1)
        if m is None: continue
        if m.error():
            errors.append(err(m.error())); continue
        out.append(rec_out(m))
    return {'records': out, 'errors': errors, 'assignment': ev['assignment'], 'assigns': ev['assigns'], 'revokes': ev['revokes']}

def op_group_commit(a):
    c, ev = consumers[a['handle']]
    try:
        parts = c.commit(asynchronous=False)
        return {'error': None, 'offsets': sorted([[p.partition, p.offset] for p in (parts or [])])}
    except Exception as e:
        return {'error': err(e)}

def op_group_close(a):
    c, ev = consumers.pop(a['handle'])
    c.close()
    return {}

def op_txn(a):
    conf = dict(BASE, **{'transactional.id': a['transactionalId'], 'linger.ms': 5, 'message.timeout.ms': 15000})
    p = Producer(conf)
    out = []
    try:
        p.init_transactions(15)
        for b in a['batches']:
            p.begin_transaction()
            r = produce_with(p, a['topic'], b['records'], 15)
            if b['commit']:
                p.commit_transaction(15)
            else:
                p.abort_transaction(15)
            out.append(r)
        return {'error': None, 'batches': out}
    except Exception as e:
        return {'error': err(e), 'batches': out}

def op_close_producer(a):
    p = producers.pop(a['handle'], None)
    if p is not None:
        p.flush(10)
    return {}

OPS = {k[3:]: v for k, v in globals().items() if k.startswith('op_')}

for line in sys.stdin:
    line = line.strip()
    if not line: continue
    req = json.loads(line)
    try:
        if req['op'] == 'init':
            BASE.update({'bootstrap.servers': req['args']['bootstrap']})
            BASE.update(req['args'].get('config', {}))
            # version() is a (string, int) tuple in 1.x and a plain string in 2.x.
            ck = __import__('confluent_kafka')
            ver = ck.version()
            res = {'version': ver[0] if isinstance(ver, tuple) else ver, 'librdkafka': ck.libversion()[0]}
        else:
            res = OPS[req['op']](req.get('args', {}))
        sys.stdout.write(json.dumps({'id': req['id'], 'ok': res}) + '\n')
    except Exception:
        sys.stdout.write(json.dumps({'id': req['id'], 'fail': traceback.format_exc()}) + '\n')
    sys.stdout.flush()
