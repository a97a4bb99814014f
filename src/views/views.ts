/**
 * Views: read-only topics that show the records of a source topic whose headers match a filter
 * (`samsa.view.source=<topic>`, `samsa.view.filter=<expression>`, see filter.ts).
 *
 * A view is an ordinary topic in the metadata (its own topic id, partitions, leader, ACLs,
 * consumer group offsets) whose partitions are never written: Fetch and ListOffsets on a view
 * read the source's partition of the same index (offsets are the source's), Produce is refused.
 * Its partition count is the source's, fixed at creation; deleting the source deletes its views.
 *
 * The hooks in the handlers test `VIEW_SOURCE in info.configs` once per partition (a property
 * lookup, no allocation) before coming here, so the plain paths are unchanged.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { HeaderFilter, parseFilter } from './filter.js';

export const VIEW_SOURCE = 'samsa.view.source';
export const VIEW_FILTER = 'samsa.view.filter';

interface TopicLike {
  name: string;
  partitions: number;
  configs: Record<string, string>;
}

/** Whether a topic is a view (the one check the hot paths make). */
export function isView(info: { configs: Record<string, string> }): boolean {
  return info.configs[VIEW_SOURCE] !== undefined;
}

const compiled = new Map<string, HeaderFilter | null>();

/** The compiled filter of a view (cached by expression; an empty filter keeps every record). */
export function viewFilter(info: { configs: Record<string, string> }): HeaderFilter | null {
  const text = info.configs[VIEW_FILTER] ?? '';
  let f = compiled.get(text);
  if (f === undefined) {
    f = text.trim() === '' ? null : parseFilter(text);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(text, f);
  }
  return f;
}

/** The source topic name of a view. */
export function viewSource(info: { configs: Record<string, string> }): string {
  return info.configs[VIEW_SOURCE];
}

/** The views whose source is `source`. */
export function viewsOf(topics: ReadonlyMap<string, TopicLike>, source: string): string[] {
  const out: string[] = [];
  for (const t of topics.values()) if (t.configs[VIEW_SOURCE] === source) out.push(t.name);
  return out;
}

/**
 * CreateTopics checks for a view (after the per-config value checks, which parse the filter):
 * the source exists, is not itself a view nor internal, and the partition count is the source's
 * (-1 takes it). Returns the partition count to create. Throws INVALID_CONFIG / INVALID_PARTITIONS.
 */
export function checkViewCreation(configs: Record<string, string>, numPartitions: number, topics: { topic(name: string): (TopicLike & { isInternal: boolean }) | undefined }): number {
  const source = configs[VIEW_SOURCE];
  if (source === undefined) {
    if (configs[VIEW_FILTER] !== undefined) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `${VIEW_FILTER} needs ${VIEW_SOURCE} (the topic the view filters)`);
    return numPartitions;
  }
  const src = topics.topic(source);
  if (!src) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Invalid value ${source} for configuration ${VIEW_SOURCE}: topic '${source}' does not exist`);
  if (src.isInternal) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Invalid value ${source} for configuration ${VIEW_SOURCE}: a view of an internal topic is not allowed`);
  if (isView(src)) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Invalid value ${source} for configuration ${VIEW_SOURCE}: '${source}' is itself a view; filter its source instead`);
  for (const name of Object.keys(configs)) {
    if (name.startsWith('samsa.schedule.')) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `A view cannot have ${name}: views are read-only`);
  }
  if (numPartitions !== -1 && numPartitions !== src.partitions) {
    throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `A view has its source's partitions: '${source}' has ${src.partitions}, ${numPartitions} were asked (use -1)`);
  }
  return src.partitions;
}

/**
 * Where a view's partitions go: on the replicas of its source's partition of the same index (the
 * preferred leader is then the same broker, which serves both), or undefined for a topic that
 * is not a view or when the source's placement is not known here.
 */
export function viewPlacement(
  configs: Record<string, string>,
  topics: { topic(name: string): { topicId: string; partitions: number } | undefined },
  partitionState: (topicId: string, partition: number) => { replicas: number[] } | undefined,
): number[][] | undefined {
  const source = configs[VIEW_SOURCE] === undefined ? undefined : topics.topic(configs[VIEW_SOURCE]);
  if (!source) return undefined;
  const lists: number[][] = [];
  for (let p = 0; p < source.partitions; p++) {
    const replicas = partitionState(source.topicId, p)?.replicas;
    if (!replicas || replicas.length === 0) return undefined;
    lists.push([...replicas]);
  }
  return lists;
}

/** AlterConfigs checks: a topic cannot become a view, stop being one or change its source; the filter may change. */
export function checkViewAlter(current: Record<string, string>, next: Record<string, string>): void {
  if (current[VIEW_SOURCE] !== next[VIEW_SOURCE]) {
    throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `${VIEW_SOURCE} is set at creation only and cannot be changed`);
  }
  if (next[VIEW_SOURCE] === undefined && next[VIEW_FILTER] !== undefined) {
    throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `${VIEW_FILTER} applies to views only (topics created with ${VIEW_SOURCE})`);
  }
}

/** Produce to a view: the per-partition answer. */
export function viewProduceError(info: { name: string; configs: Record<string, string> }): { errorCode: number; message: string } {
  return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, message: `Topic '${info.name}' is a read-only view of '${viewSource(info)}'; produce to '${viewSource(info)}' instead` };
}
