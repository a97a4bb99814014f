# kafka-python 2.0.2 agent for the compatibility suite; same line protocol as confluent_agent.py.
# Run with /usr/bin/python3 (Debian's python3-kafka). kafka_python3_agent.py imports this module
# for what kafka-python 3.x still does the same way, so the command loop runs only as __main__.
import os, sys, json, base64, time, traceback
import kafka
from kafka import KafkaProducer, KafkaConsumer, KafkaAdminClient, TopicPartition, ConsumerRebalanceListener
from kafka.admin import NewTopic, ConfigResource, ConfigResourceType

def b64e(b):
    return None if b is None else base64.b64encode(b).decode('ascii')

def b64d(s):
    return None if s is None else base64.b64decode(s)

def err(e):
    if e is None:
        return None
    return {'code': getattr(e, 'errno', None), 'name': type(e).__name__, 'str': str(e)}

def code_err(code, msg=None):
    if not code:
        return None
    return {'code': code, 'name': kafka.errors.for_code(code).__name__, 'str': msg or ''}

BOOT = {}
producers = {}
consumers = {}

def rec_out(m):
    return {'partition': m.partition, 'offset': m.offset, 'timestamp': m.timestamp,
            'tstype': {0: 'CreateTime', 1: 'LogAppendTime'}.get(m.timestamp_type),
            'key': b64e(m.key), 'value': b64e(m.value),
            'headers': [[h[0], b64e(h[1])] for h in (m.headers or [])]}

def send_all(p, topic, records):
    futs = []
    for r in records:
        s = {'value': b64d(r.get('value')), 'key': b64d(r.get('key'))}
        if r.get('partition') is not None: s['partition'] = r['partition']
        if r.get('headers'): s['headers'] = [(x[0], b64d(x[1])) for x in r['headers']]
        if r.get('timestamp') is not None: s['timestamp_ms'] = r['timestamp']
        try:
            futs.append(p.send(topic, **s))
        except Exception as e:
            futs.append(e)
    return futs

def collect(futs):
    reports = []
    for f in futs:
        if isinstance(f, Exception):
            reports.append({'error': err(f)}); continue
        try:
            md = f.get(timeout=20)
            reports.append({'error': None, 'partition': md.partition, 'offset': md.offset, 'timestamp': md.timestamp})
        except Exception as e:
            reports.append({'error': err(e)})
    return reports

def op_produce(a):
    kw = {'bootstrap_servers': BOOT['b'], 'request_timeout_ms': 10000, 'max_block_ms': 10000, 'linger_ms': 5}
    kw.update(a.get('config', {}))
    h = a.get('handle')
    if h and h in producers:
        p = producers[h]
    else:
        p = KafkaProducer(**kw)
        if h: producers[h] = p
    futs = send_all(p, a['topic'], a['records'])
    try:
        p.flush(a.get('timeoutS', 20))
    except Exception:
        pass
    reports = collect(futs)
    if not h:
        p.close(5)
    return {'reports': reports, 'unflushed': 0}

def op_close_producer(a):
    p = producers.pop(a['handle'], None)
    if p is not None: p.close(5)
    return {}

def op_read(a):
    kw = {}
    if a.get('isolation'): kw['isolation_level'] = a['isolation']  # kafka-python 3.x only
    c = KafkaConsumer(bootstrap_servers=BOOT['b'], group_id=None, enable_auto_commit=False,
                      auto_offset_reset=a.get('reset', 'earliest'), request_timeout_ms=11000, fetch_max_wait_ms=100, **kw)
    tps = [TopicPartition(a['topic'], p) for p in a['partitions']]
    c.assign(tps)
    start = a.get('from', 'earliest')
    if start == 'earliest': c.seek_to_beginning(*tps)
    elif start == 'latest': c.seek_to_end(*tps)
    else:
        for tp in tps: c.seek(tp, start)
    out, errors = [], []
    deadline = time.time() + a.get('timeoutMs', 15000) / 1000.0
    while len(out) < a['count'] and time.time() < deadline:
        try:
            batches = c.poll(timeout_ms=200)
        except Exception as e:
            errors.append(err(e))
            if a.get('stopOnError'): break
            continue
        for tp, msgs in sorted(batches.items(), key=lambda kv: kv[0].partition):
            for m in msgs: out.append(rec_out(m))
    c.close(autocommit=False)
    return {'records': out, 'errors': errors}

def admin():
    return KafkaAdminClient(bootstrap_servers=BOOT['b'], request_timeout_ms=15000)

def op_create_topic(a):
    ad = admin()
    try:
        r = ad.create_topics([NewTopic(a['name'], a.get('partitions', 1), 1, topic_configs=a.get('configs', {}))], timeout_ms=10000)
        e = r.topic_errors[0]
        return {'error': code_err(e[1], e[2] if len(e) > 2 else None)}
    except Exception as e:
        return {'error': err(e)}
    finally:
        ad.close()

def op_delete_topic(a):
    ad = admin()
    try:
        r = ad.delete_topics([a['name']], timeout_ms=10000)
        return {'error': code_err(r.topic_error_codes[0][1])}
    except Exception as e:
        return {'error': err(e)}
    finally:
        ad.close()

def op_describe_topic(a):
    ad = admin()
    try:
        r = ad.describe_topics([a['name']])
        t = r[0]
        if t['error_code']:
            return {'error': code_err(t['error_code'])}
        return {'error': None, 'partitions': len(t['partitions'])}
    except Exception as e:
        return {'error': err(e)}
    finally:
        ad.close()

def op_describe_configs(a):
    ad = admin()
    try:
        r = ad.describe_configs([ConfigResource(ConfigResourceType.TOPIC, a['topic'])])
        res = r[0].resources[0]
        if res[0]:
            return {'error': code_err(res[0], res[1])}
        # config_entries: (name, value, read_only, config_source | is_default, is_sensitive, ...)
        return {'error': None, 'configs': {e[0]: {'value': e[1]} for e in res[4]}}
    except Exception as e:
        return {'error': err(e)}
    finally:
        ad.close()

def op_alter_configs(a):
    ad = admin()
    try:
        r = ad.alter_configs([ConfigResource(ConfigResourceType.TOPIC, a['topic'], configs=a['set'])])
        res = r.resources[0]
        return {'error': code_err(res[0], res[1])}
    except Exception as e:
        return {'error': err(e)}
    finally:
        ad.close()

def op_list_offsets(a):
    c = KafkaConsumer(bootstrap_servers=BOOT['b'], group_id=None, request_timeout_ms=11000)
    tp = TopicPartition(a['topic'], a['partition'])
    out = {'earliest': c.beginning_offsets([tp])[tp], 'latest': c.end_offsets([tp])[tp]}
    for ts in a.get('timestamps', []):
        r = c.offsets_for_times({tp: ts})[tp]
        out[str(ts)] = -1 if r is None else r.offset
    c.close(autocommit=False)
    return out

class Listener(ConsumerRebalanceListener):
    def __init__(self, ev): self.ev = ev
    def on_partitions_revoked(self, revoked):
        if revoked: self.ev['revokes'] += 1
        self.ev['assignment'] = []
    def on_partitions_assigned(self, assigned):
        self.ev['assigns'] += 1
        self.ev['assignment'] = sorted(p.partition for p in assigned)

# Each group member polls in its own thread: kafka-python's poll() blocks inside JoinGroup until
# every member has rejoined, so members served in turn by one thread would deadlock a rebalance.
# The consumer is used only by its thread (kafka-python is not thread-safe); commit and close are
# requests to that thread.
import threading

class Member(threading.Thread):
    def __init__(self, a):
        super().__init__(daemon=True)
        self.ev = {'assignment': [], 'assigns': 0, 'revokes': 0}
        self.lock = threading.Lock()
        self.buf, self.errors = [], []
        self.stop = False
        self.commit_req = None
        self.c = KafkaConsumer(**self.consumer_config(a))
        self.c.subscribe([a['topic']], listener=Listener(self.ev))
    def consumer_config(self, a):
        return dict(bootstrap_servers=BOOT['b'], group_id=a['group'], enable_auto_commit=False,
                    auto_offset_reset='earliest', session_timeout_ms=a.get('sessionTimeoutMs', 6000),
                    heartbeat_interval_ms=500, request_timeout_ms=11000, fetch_max_wait_ms=100)
    def after_poll(self):
        pass
    def run(self):
        while not self.stop:
            if self.commit_req is not None:
                req, self.commit_req = self.commit_req, None
                try:
                    self.c.commit(); req['result'] = None
                except Exception as e:
                    req['result'] = err(e)
                req['done'].set()
            try:
                batches = self.c.poll(timeout_ms=100)
                self.after_poll()
            except Exception as e:
                with self.lock: self.errors.append(err(e))
                continue
            with self.lock:
                for tp, msgs in sorted(batches.items(), key=lambda kv: kv[0].partition):
                    for m in msgs: self.buf.append(rec_out(m))
        self.c.close(autocommit=False)

def op_group_open(a, member=Member):
    m = member(a)
    consumers[a['handle']] = m
    m.start()
    return {}

def op_group_poll(a):
    m = consumers[a['handle']]
    deadline = time.time() + a.get('timeoutMs', 1000) / 1000.0
    mx = a.get('max', 1000)
    while time.time() < deadline:
        with m.lock:
            if len(m.buf) >= mx: break
        time.sleep(0.05)
    with m.lock:
        out, m.buf = m.buf[:mx], m.buf[mx:]
        errors, m.errors = m.errors, []
    return {'records': out, 'errors': errors, 'assignment': m.ev['assignment'], 'assigns': m.ev['assigns'], 'revokes': m.ev['revokes']}

def op_group_commit(a):
    m = consumers[a['handle']]
    req = {'done': threading.Event(), 'result': None}
    m.commit_req = req
    if not req['done'].wait(20):
        return {'error': {'code': None, 'name': 'CommitTimeout', 'str': 'commit not done within 20 s'}}
    return {'error': req['result']}

def op_group_close(a):
    m = consumers.pop(a['handle'])
    m.stop = True
    m.join(30)
    return {}

OPS = {k[3:]: v for k, v in globals().items() if k.startswith('op_')}

def serve(ops):
    # COMPAT_AGENT_LOG=FILE: the client library's own log, for finding out why a scenario failed.
    if os.environ.get('COMPAT_AGENT_LOG'):
        import logging
        logging.basicConfig(filename=os.environ['COMPAT_AGENT_LOG'], level=getattr(logging, os.environ.get('COMPAT_AGENT_LOG_LEVEL', 'INFO')),
                            format='%(asctime)s %(threadName)s %(name)s %(message)s')
    for line in sys.stdin:
        line = line.strip()
        if not line: continue
        req = json.loads(line)
        try:
            if req['op'] == 'init':
                BOOT['b'] = req['args']['bootstrap']
                res = {'version': kafka.__version__}
            else:
                res = ops[req['op']](req.get('args', {}))
            sys.stdout.write(json.dumps({'id': req['id'], 'ok': res}) + '\n')
        except Exception:
            sys.stdout.write(json.dumps({'id': req['id'], 'fail': traceback.format_exc()}) + '\n')
        sys.stdout.flush()

if __name__ == '__main__':
    serve(OPS)
