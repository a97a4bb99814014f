/**
 * The vocabulary every client driver speaks. A scenario is written once against `Driver`; a
 * driver that lacks an operation (or a capability flag) makes the scenario "n/a" for that client,
 * with the reason, never a silent pass.
 */
export type ClientName = 'kafkajs' | 'platformatic' | 'kcat' | 'confluent' | 'kafka-python' | 'confluent2' | 'kafka-python3' | 'java' | 'kafka-cli';
export const ALL_CLIENTS: ClientName[] = ['kafkajs', 'platformatic', 'kcat', 'confluent', 'kafka-python', 'confluent2', 'kafka-python3', 'java', 'kafka-cli'];

export type Codec = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export const CODECS: Codec[] = ['gzip', 'snappy', 'lz4', 'zstd'];

/** A record as every reader reports it (bytes as base64, null stays null). */
export interface Rec {
  partition: number;
  offset: number;
  timestamp: number;
  /** 'CreateTime' | 'LogAppendTime' when the client reports it, else null. */
  tstype?: string | null;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}

/** What a writer is asked to send. partition undefined: the client's partitioner chooses. */
export interface OutRec {
  partition?: number;
  key: string | null;
  value: string | null;
  headers?: [string, string | null][];
  timestamp?: number;
}

/** A Kafka error as observed: the protocol name when the client exposes a broker code, else the client's own label. */
export type ErrName = string | null;

export interface ProduceOpts {
  compression?: Codec;
  acks?: -1 | 0 | 1;
  idempotent?: boolean;
  clientId?: string;
  /** Keep the producer open under this name (for restart scenarios); closeProducer(handle) ends it. */
  handle?: string;
  /** Short client-side timeouts (for scenarios that expect a failure). */
  failFast?: boolean;
}

export interface ProduceResult {
  /** The first error any record got, normalised; null when every record was acknowledged. */
  error: ErrName;
  /** Per record, in send order, when the client reports it. */
  acks: { partition?: number; offset?: number; error: ErrName }[];
}

export interface ReadOpts {
  partitions: number[];
  from: 'earliest' | 'latest' | number;
  /** auto.offset.reset for an out-of-range start. */
  reset?: 'earliest' | 'latest' | 'none';
  count: number;
  timeoutMs: number;
  isolation?: 'read_committed' | 'read_uncommitted';
}

export interface ReadResult {
  records: Rec[];
  errors: ErrName[];
}

export interface TopicSpec {
  name: string;
  partitions: number;
  configs?: Record<string, string>;
}

export interface GroupOpenOpts {
  handle: string;
  group: string;
  topic: string;
  instanceId?: string;
  sessionTimeoutMs?: number;
}

export interface GroupPoll {
  records: Rec[];
  errors: ErrName[];
  assignment: number[];
  /** How many assignments this member has received so far. */
  assigns: number;
}

export interface TxnBatch {
  records: OutRec[];
  commit: boolean;
}

export interface Driver {
  name: ClientName;
  version: string;
  /** Codecs this client can produce with / decode. */
  writeCodecs: Codec[];
  readCodecs: Codec[];
  /** Expressiveness limits (the scenario skips records a client cannot express, and says so). */
  can: {
    nullKey: boolean;
    emptyKey: boolean;
    nullValue: boolean;
    emptyValue: boolean;
    headers: boolean;
    nullHeaderValue: boolean;
    binaryKey: boolean;
    explicitTimestamp: boolean;
    explicitPartition: boolean;
    reportsTimestampType: boolean;
  };
  /** Reason strings for operations the driver does not offer (shown as n/a). */
  lacks: Partial<Record<string, string>>;

  produce?(topic: string, records: OutRec[], opts?: ProduceOpts): Promise<ProduceResult>;
  closeProducer?(handle: string): Promise<void>;
  read?(topic: string, opts: ReadOpts): Promise<ReadResult>;
  createTopic?(t: TopicSpec): Promise<ErrName>;
  deleteTopic?(name: string): Promise<ErrName>;
  describeTopic?(name: string): Promise<{ error: ErrName; partitions?: number }>;
  describeConfigs?(topic: string): Promise<{ error: ErrName; configs?: Record<string, string | null> }>;
  alterConfigs?(topic: string, set: Record<string, string>): Promise<ErrName>;
  /** earliest, latest and, per timestamp, the first offset whose timestamp is >= it (-1: none). */
  listOffsets?(topic: string, partition: number, timestamps: number[]): Promise<{ earliest: number; latest: number; byTime: Record<string, number | ErrName> }>;
  deleteRecords?(topic: string, partition: number, before: number): Promise<{ error: ErrName; lowWatermark?: number }>;
  groupOpen?(o: GroupOpenOpts): Promise<void>;
  groupPoll?(handle: string, timeoutMs: number, max?: number): Promise<GroupPoll>;
  groupCommit?(handle: string): Promise<ErrName>;
  groupClose?(handle: string): Promise<void>;
  /** Static membership (group.instance.id) supported by groupOpen. */
  staticMembership?: boolean;
  /** Runs transactions in order with one transactional producer. */
  transactions?(topic: string, transactionalId: string, batches: TxnBatch[]): Promise<{ error: ErrName; results: ProduceResult[] }>;
  close(): Promise<void>;
}

export type Status = 'pass' | 'fail' | 'n/a' | 'xfail' | 'xpass';

/** What one scenario reports for one client: normalised observations, comparable across targets. */
export interface Outcome {
  status: 'pass' | 'fail' | 'n/a';
  reason?: string;
  observed?: unknown;
  ms?: number;
}
