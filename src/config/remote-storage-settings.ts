/**
 * Tiered storage (KIP-405, src/remote/): Kafka's broker switches and Samsa's object store, merged
 * into BROKER_SETTINGS. Topic-level settings (remote.storage.enable, local.retention.*,
 * remote.log.copy.disable) are with the other topic configs in settings.ts.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

export const REMOTE_STORAGE_SETTINGS = {
  'remote.log.storage.system.enable': {
    type: 'boolean', default: 'false',
    doc: 'Tiered storage on this broker: topics may then set remote.storage.enable=true, and their closed segments are copied to the object store samsa.remote.s3.* names.',
  },
  'remote.log.manager.task.interval.ms': {
    type: 'long', default: '30000', min: 1,
    doc: 'How often each tiered partition copies closed segments, applies retention to the remote tier and (on followers) lists what is remote.',
  },
  'samsa.remote.s3.endpoint': {
    type: 'string', default: '',
    doc: 'Samsa only: the S3-compatible endpoint (e.g. http://127.0.0.1:7070 for Versity\'s gateway or MinIO); empty = AWS S3 of samsa.remote.s3.region.',
  },
  'samsa.remote.s3.region': {
    type: 'string', default: 'us-east-1',
    doc: 'Samsa only: the object store\'s region.',
  },
  'samsa.remote.s3.bucket': {
    type: 'string', default: 'samsa-tiered',
    doc: 'Samsa only: the bucket tiered segments go to (created at start-up when missing).',
  },
  'samsa.remote.s3.prefix': {
    type: 'string', default: '',
    doc: 'Samsa only: prepended to every object key (several clusters can share a bucket).',
  },
  'samsa.remote.s3.path.style.access': {
    type: 'boolean', default: 'true',
    doc: 'Samsa only: path-style requests (http://host/bucket/key), as self-hosted stores want; false for virtual-hosted style.',
  },
  'samsa.remote.s3.access.key.id': {
    type: 'string', default: '',
    doc: 'Samsa only: the access key; empty = the AWS SDK\'s usual chain (AWS_ACCESS_KEY_ID, ~/.aws, instance roles).',
  },
  'samsa.remote.s3.secret.access.key': {
    type: 'password', default: '',
    doc: 'Samsa only: the secret key of samsa.remote.s3.access.key.id.',
  },
  'samsa.remote.s3.part.bytes': {
    type: 'int', default: '8388608', min: 5242880,
    doc: 'Samsa only: a segment larger than this goes up as a multipart upload of parts this size (one in memory at a time).',
  },
  'samsa.remote.s3.request.timeout.ms': {
    type: 'int', default: '30000', min: 1,
    doc: 'Samsa only: timeout of one object store request.',
  },
  'samsa.remote.fetch.cache.bytes': {
    type: 'long', default: '67108864', min: 0,
    doc: 'Samsa only: memory for cached chunks and indexes of remote segments (shared by every partition).',
  },
  'samsa.remote.fetch.chunk.bytes': {
    type: 'int', default: '4194304', min: 65536,
    doc: 'Samsa only: remote segments are read in ranged GETs of this many bytes.',
  },
  'samsa.remote.orphan.age.ms': {
    type: 'long', default: '600000', min: 0,
    doc: 'Samsa only: objects of a segment that never got its manifest (an upload cut short) are deleted by the next leader once this old.',
  },
} as const satisfies Record<string, SettingSpec>;

/** The remote storage settings, typed (what the room that reads them takes). */
export type RemoteStorageSettings = SettingsOf<typeof REMOTE_STORAGE_SETTINGS>;
