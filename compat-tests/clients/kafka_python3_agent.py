# kafka-python 3.x agent for the compatibility suite; same line protocol as confluent_agent.py.
# Run with the venv's python (test/support/external.ts: VENV_PYTHON). Producing, reading and the
# group member thread are kafka_python_agent.py's (unchanged API); what is here is what 3.x does
# differently (its admin client answers with dicts, not response objects) or newly: DeleteRecords,
# ListOffsets through the admin client, IncrementalAlterConfigs, transactions, read_committed and
# static membership.
import re
import kafka
from kafka import KafkaProducer, KafkaAdminClient, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType
from kafka.protocol.consumer import OffsetSpec
import kafka_python_agent as base
from kafka_python_agent import BOOT, err, code_err

def admin():
    return KafkaAdminClient(bootstrap_servers=BOOT['b'], request_timeout_ms=15000)

def with_admin(fn):
    ad = admin()
    try:
        return fn(ad)
    except Exception as e:
        return {'error': err(e)}
    finally:
        ad.close()

def op_create_topic(a):
    def go(ad):
        r = ad.create_topics({a['name']: {'num_partitions': a.get('partitions', 1), 'replication_factor': 1, 'configs': a.get('configs', {})}},
                             timeout_ms=10000, raise_errors=False)
        t = r['topics'][0]
        return {'error': code_err(t['error_code'], t.get('error_message'))}
    return with_admin(go)

def op_delete_topic(a):
    def go(ad):
        t = ad.delete_topics([a['name']], timeout_ms=10000, raise_errors=False)['topics'][0]
        return {'error': code_err(t['error_code'], t.get('error_message'))}
    return with_admin(go)

def op_describe_topic(a):
    def go(ad):
        t = ad.describe_topics([a['name']])[0]
        if t['error_code']:
            return {'error': code_err(t['error_code'])}
        return {'error': None, 'partitions': len(t['partitions'])}
    return with_admin(go)

def op_describe_configs(a):
    def go(ad):
        # 3.x filters to non-default values unless asked for all.
        r = ad.describe_configs([ConfigResource(ConfigResourceType.TOPIC, a['topic'])], config_filter='all')
        cfg = r.get('topic', {}).get(a['topic'])
        if cfg is None:
            return {'error': {'code': None, 'name': 'NoResource', 'str': repr(r)}}
        return {'error': None, 'configs': {k: {'value': v['value'], 'source': v.get('config_source')} for k, v in cfg.items()}}
    return with_admin(go)

# "[Error 40] InvalidConfigurationError: ..." as 3.x reports a per-resource AlterConfigs error.
ERROR_TEXT = re.compile(r'^\[Error (-?\d+)\]')

def op_alter_configs(a):
    def go(ad):
        # IncrementalAlterConfigs where the broker offers it (3.x picks it by ApiVersions), SET per key.
        r = ad.alter_configs([ConfigResource(ConfigResourceType.TOPIC, a['topic'], configs=a['set'])])
        res = r.get('topic', {}).get(a['topic'])
        if res == 'OK':
            return {'error': None}
        m = ERROR_TEXT.match(str(res))
        return {'error': code_err(int(m.group(1)), str(res)) if m else {'code': None, 'name': 'AlterConfigs', 'str': str(res)}}
    return with_admin(go)

def op_list_offsets(a):
    # The admin client's ListOffsets (not the consumer's): one spec per partition per request.
    ad = admin()
    try:
        tp = TopicPartition(a['topic'], a['partition'])
        one = lambda spec: ad.list_partition_offsets({tp: spec})[tp].offset
        out = {'earliest': one(OffsetSpec.EARLIEST), 'latest': one(OffsetSpec.LATEST)}
        for ts in a.get('timestamps', []):
            try:
                out[str(ts)] = one(ts)
            except Exception as e:
                out[str(ts)] = err(e)
        return out
    finally:
        ad.close()

def op_delete_records(a):
    def go(ad):
        tp = TopicPartition(a['topic'], a['partition'])
        r = ad.delete_records({tp: a['before']}, timeout_ms=10000)[tp]
        if r['error_code']:
            return {'error': code_err(r['error_code'])}
        return {'error': None, 'lowWatermark': r['low_watermark']}
    return with_admin(go)

def op_txn(a):
    p = KafkaProducer(bootstrap_servers=BOOT['b'], transactional_id=a['transactionalId'], linger_ms=5,
                      request_timeout_ms=10000, max_block_ms=15000)
    out = []
    try:
        p.init_transactions()
        for b in a['batches']:
            p.begin_transaction()
            futs = base.send_all(p, a['topic'], b['records'])
            p.flush(15)
            reports = base.collect(futs)
            if b['commit']:
                p.commit_transaction()
            else:
                p.abort_transaction()
            out.append({'reports': reports, 'unflushed': 0})
        return {'error': None, 'batches': out}
    except Exception as e:
        return {'error': err(e), 'batches': out}
    finally:
        p.close(5)

class Member(base.Member):
    # kafka-python 3.0.12 can drop a rejoin on the floor: a JoinGroup that poll() stopped waiting
    # for (its timeout passed) is awaited again only while need_rejoin() holds, but the leader's
    # own assignment step clears that (assignment snapshot == metadata snapshot) for a rejoin that
    # a metadata change started. The SyncGroup answer then arrives and is never applied: no
    # assignment, heartbeats stay off, the broker expires the member after session.timeout.ms and
    # the client never notices. Seen against Apache Kafka 4.4.0 and Samsa alike, more often where
    # the join completes within a few ms of the poll deadline. Asking for a rejoin while a join
    # task is pending makes the next poll() await (or redo) it, as the library means to.
    def after_poll(self):
        co = self.c._coordinator
        if co._join_task is not None and not co.need_rejoin():
            co.request_rejoin()
    def consumer_config(self, a):
        kw = super().consumer_config(a)
        if a.get('instanceId'): kw['group_instance_id'] = a['instanceId']
        if a.get('isolation'): kw['isolation_level'] = a['isolation']
        return kw

def op_group_open(a):
    return base.op_group_open(a, member=Member)

OPS = dict(base.OPS)
OPS.update({k[3:]: v for k, v in globals().items() if k.startswith('op_')})

if __name__ == '__main__':
    if int(kafka.__version__.split('.')[0]) < 3:
        raise SystemExit('kafka_python3_agent.py needs kafka-python 3.x, found %s' % kafka.__version__)
    base.serve(OPS)
