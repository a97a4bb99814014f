/**
 * The remote log metadata's rules (src/remote/remote-segment.ts, remote-log-manager.ts chainOf):
 * keys and their segment ids, manifests that parse or not, which segments agree with a log's
 * leader-epoch lineage (a zombie leader's segment past the new leader's start does not), and the
 * chain readers use when segments overlap.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  consistentWithLineage, epochCheckpointBytes, epochsWithin, isManifestKey, parseManifest, partitionPrefix, segmentIdOfKey, segmentKey,
  type RemoteSegment,
} from '../../src/remote/remote-segment.js';
import { chainOf } from '../../src/remote/remote-log-manager.js';

function seg(baseOffset: number, endOffset: number, leaderEpochs: { epoch: number; startOffset: number }[], leaderEpoch = leaderEpochs[leaderEpochs.length - 1].epoch): RemoteSegment {
  return {
    version: 1, topic: 't', topicId: 'id', partition: 0, segmentId: `s${baseOffset}-${leaderEpoch}`, baseOffset, endOffset, maxTimestampMs: 0,
    leaderEpoch, brokerId: 1, leaderEpochs, sizeBytes: 100, hasSnapshot: false, createdMs: 0,
  };
}

test('keys: the partition prefix, 20-digit base offset, leader epoch and segment id; the manifest is recognised', () => {
  const prefix = partitionPrefix('cluster-a/', 'orders', 'AbC', 3);
  assert.is(prefix, 'cluster-a/orders-AbC/3/');
  const key = segmentKey(prefix, { baseOffset: 1234, leaderEpoch: 7, segmentId: 'Xy_z-9' }, 'manifest');
  assert.is(key, 'cluster-a/orders-AbC/3/00000000000000001234-7-Xy_z-9.manifest');
  assert.ok(isManifestKey(key));
  assert.is(segmentIdOfKey(key), 'Xy_z-9');
  assert.is(segmentIdOfKey(segmentKey(prefix, { baseOffset: 0, leaderEpoch: 0, segmentId: 'a' }, 'leader-epoch-checkpoint')), 'a');
  assert.is(segmentIdOfKey('cluster-a/orders-AbC/3/notes.txt'), null);
});

test('manifests: a valid one round-trips, garbage and other versions are null', () => {
  const s = seg(0, 99, [{ epoch: 0, startOffset: 0 }]);
  assert.equal(parseManifest(Buffer.from(JSON.stringify(s))), s);
  assert.is(parseManifest(Buffer.from('{not json')), null);
  assert.is(parseManifest(Buffer.from(JSON.stringify({ ...s, version: 2 }))), null);
});

test('epochsWithin clips the epochs to a segment', () => {
  const lineage = [{ epoch: 0, startOffset: 0 }, { epoch: 2, startOffset: 50 }, { epoch: 5, startOffset: 120 }];
  assert.equal(epochsWithin(lineage, 40, 99), [{ epoch: 0, startOffset: 40 }, { epoch: 2, startOffset: 50 }]);
  assert.equal(epochsWithin(lineage, 120, 130), [{ epoch: 5, startOffset: 120 }]);
  assert.equal(epochsWithin(lineage, 60, 70), [{ epoch: 2, startOffset: 60 }]);
});

test('lineage: segments of the log are kept; a zombie\'s segment past the new leader\'s epoch start is not', () => {
  const lineage = [{ epoch: 0, startOffset: 0 }, { epoch: 1, startOffset: 100 }, { epoch: 3, startOffset: 150 }];
  assert.ok(consistentWithLineage(seg(0, 99, [{ epoch: 0, startOffset: 0 }]), lineage, 200));
  assert.ok(consistentWithLineage(seg(90, 140, [{ epoch: 0, startOffset: 0 }, { epoch: 1, startOffset: 100 }]), lineage, 200));
  // The leader of epoch 1 kept writing after epoch 3 began at 150 elsewhere: its 100-179 segment is not this log's.
  assert.not.ok(consistentWithLineage(seg(100, 179, [{ epoch: 0, startOffset: 0 }, { epoch: 1, startOffset: 100 }]), lineage, 200));
  // An epoch this log never had.
  assert.not.ok(consistentWithLineage(seg(150, 170, [{ epoch: 2, startOffset: 150 }]), lineage, 200));
  // Beyond this log's end.
  assert.not.ok(consistentWithLineage(seg(150, 260, [{ epoch: 3, startOffset: 150 }]), lineage, 200));
  // Below what the lineage still holds (a replica rebuilt from a later segment): nothing to tell, kept.
  assert.ok(consistentWithLineage(seg(0, 49, [{ epoch: 0, startOffset: 0 }]), [{ epoch: 3, startOffset: 150 }], 200));
});

test('chainOf: sorted by base offset, a segment inside another dropped, the longer one kept', () => {
  const a = seg(0, 99, [{ epoch: 0, startOffset: 0 }]);
  const b = seg(100, 199, [{ epoch: 0, startOffset: 0 }]);
  const inner = seg(100, 150, [{ epoch: 1, startOffset: 100 }]);
  const c = seg(200, 299, [{ epoch: 1, startOffset: 100 }]);
  assert.equal(chainOf([c, inner, a, b]).map((s) => [s.baseOffset, s.endOffset]), [[0, 99], [100, 199], [200, 299]]);
});

test('the leader-epoch checkpoint object is Kafka\'s text format', () => {
  assert.is(epochCheckpointBytes([{ epoch: 0, startOffset: 0 }, { epoch: 4, startOffset: 77 }]).toString(), '0\n2\n0 0\n4 77\n');
});

test.run();
