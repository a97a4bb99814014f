/** The share group settings of a broker (config/share-group-settings.ts), typed. */

export interface ShareGroupConfig {
  /** group.share.session.timeout.ms */
  sessionTimeoutMs: number;
  /** group.share.heartbeat.interval.ms */
  heartbeatIntervalMs: number;
  /** group.share.max.size */
  maxSize: number;
  /** share.assignment.interval.ms (group) / group.share.assignment.interval.ms: assignment batching */
  assignmentIntervalMs: number;
  /** group.share.delivery.count.limit */
  deliveryCountLimit: number;
  /** group.share.record.lock.duration.ms */
  recordLockDurationMs: number;
  /** group.share.partition.max.record.locks */
  partitionMaxRecordLocks: number;
  /** group.share.max.share.sessions */
  maxShareSessions: number;
  /** share.auto.offset.reset (a group config; 'latest' for every group until group configs are set). */
  autoOffsetReset: 'latest' | 'earliest';
  /** share.isolation.level */
  isolationLevel: 'read_uncommitted' | 'read_committed';
  /** errors.deadletterqueue.topic.name.prefix (broker) */
  deadLetterTopicPrefix: string;
  /** errors.deadletterqueue.auto.create.topics.enable (broker) */
  deadLetterAutoCreate: boolean;
  /** errors.deadletterqueue.topic.name (group; '' = no dead-letter topic) */
  deadLetterTopicName: string;
  /** errors.deadletterqueue.copy.record.enable (group): copy key and value, not only the context headers */
  deadLetterCopyRecord: boolean;
  /** samsa.share.redelivery.backoff.ms / .max.ms: delay before a released or timed-out record is offered again (0: at once, as Kafka). */
  redeliveryBackoffMs: number;
  redeliveryBackoffMaxMs: number;
}

export function defaultShareGroupConfig(over: Partial<ShareGroupConfig> = {}): ShareGroupConfig {
  return {
    sessionTimeoutMs: 45000, heartbeatIntervalMs: 5000, maxSize: 200, assignmentIntervalMs: 1000, deliveryCountLimit: 5, recordLockDurationMs: 30000,
    partitionMaxRecordLocks: 2000, maxShareSessions: 2000, autoOffsetReset: 'latest', isolationLevel: 'read_uncommitted',
    deadLetterTopicPrefix: 'dlq.', deadLetterAutoCreate: false, deadLetterTopicName: '', deadLetterCopyRecord: false, redeliveryBackoffMs: 0, redeliveryBackoffMaxMs: 60000,
    ...over,
  };
}

export function shareGroupConfigFrom(raw: Record<string, unknown>): ShareGroupConfig {
  const d = defaultShareGroupConfig();
  const num = (name: string, def: number) => (raw[name] === undefined ? def : Number(raw[name]));
  return {
    sessionTimeoutMs: num('group.share.session.timeout.ms', d.sessionTimeoutMs),
    heartbeatIntervalMs: num('group.share.heartbeat.interval.ms', d.heartbeatIntervalMs),
    maxSize: num('group.share.max.size', d.maxSize),
    assignmentIntervalMs: num('group.share.assignment.interval.ms', d.assignmentIntervalMs),
    deliveryCountLimit: num('group.share.delivery.count.limit', d.deliveryCountLimit),
    recordLockDurationMs: num('group.share.record.lock.duration.ms', d.recordLockDurationMs),
    partitionMaxRecordLocks: num('group.share.partition.max.record.locks', d.partitionMaxRecordLocks),
    maxShareSessions: num('group.share.max.share.sessions', d.maxShareSessions),
    autoOffsetReset: d.autoOffsetReset,
    isolationLevel: d.isolationLevel,
    deadLetterTopicPrefix: raw['errors.deadletterqueue.topic.name.prefix'] === undefined ? d.deadLetterTopicPrefix : String(raw['errors.deadletterqueue.topic.name.prefix']),
    deadLetterAutoCreate: String(raw['errors.deadletterqueue.auto.create.topics.enable'] ?? 'false') === 'true',
    deadLetterTopicName: '',
    deadLetterCopyRecord: false,
    redeliveryBackoffMs: d.redeliveryBackoffMs,
    redeliveryBackoffMaxMs: d.redeliveryBackoffMaxMs,
  };
}

/** The group's effective share settings: the broker's, with the group's GROUP-resource configs over them. */
export function shareConfigOfGroup(base: ShareGroupConfig, lookup: { resolve(groupId: string): Record<string, unknown> } | undefined, groupId: string): ShareGroupConfig {
  if (!lookup) return base;
  const r = lookup.resolve(groupId) as Record<string, unknown>;
  const n = (name: string, def: number) => (typeof r[name] === 'number' ? (r[name] as number) : def);
  const reset = String(r['share.auto.offset.reset'] ?? base.autoOffsetReset);
  return {
    ...base,
    sessionTimeoutMs: n('share.session.timeout.ms', base.sessionTimeoutMs),
    heartbeatIntervalMs: n('share.heartbeat.interval.ms', base.heartbeatIntervalMs),
    assignmentIntervalMs: n('share.assignment.interval.ms', base.assignmentIntervalMs),
    recordLockDurationMs: n('share.record.lock.duration.ms', base.recordLockDurationMs),
    deliveryCountLimit: n('share.delivery.count.limit', base.deliveryCountLimit),
    partitionMaxRecordLocks: n('share.partition.max.record.locks', base.partitionMaxRecordLocks),
    autoOffsetReset: reset === 'earliest' ? 'earliest' : 'latest',
    isolationLevel: r['share.isolation.level'] === 'read_committed' ? 'read_committed' : 'read_uncommitted',
    deadLetterTopicName: typeof r['errors.deadletterqueue.topic.name'] === 'string' ? (r['errors.deadletterqueue.topic.name'] as string) : base.deadLetterTopicName,
    deadLetterCopyRecord: r['errors.deadletterqueue.copy.record.enable'] === true,
    redeliveryBackoffMs: n('samsa.share.redelivery.backoff.ms', base.redeliveryBackoffMs),
    redeliveryBackoffMaxMs: n('samsa.share.redelivery.backoff.max.ms', base.redeliveryBackoffMaxMs),
  };
}
