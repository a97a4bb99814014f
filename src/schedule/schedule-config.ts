/**
 * CreateTopics / AlterConfigs checks of a schedule topic's configs (`samsa.schedule.*`): the
 * target exists, is neither the schedule topic itself, nor a view, nor internal. The value checks
 * (types, bounds) are the config table's (config/settings.ts).
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { SCHEDULE_DELAY_MS, SCHEDULE_TARGET, SCHEDULE_TICK_MS } from './deliver-at.js';

interface TopicLike {
  configs: Record<string, string>;
  isInternal?: boolean;
}

export function checkScheduleConfigs(name: string, configs: Record<string, string>, topics: { topic(name: string): TopicLike | undefined }): void {
  const target = configs[SCHEDULE_TARGET];
  if (target === undefined || target === '') {
    for (const k of [SCHEDULE_DELAY_MS, SCHEDULE_TICK_MS]) {
      if (configs[k] !== undefined) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `${k} needs ${SCHEDULE_TARGET} (the topic records are delivered to)`);
    }
    return;
  }
  const invalid = (why: string) => new KafkaApiError(ErrorCode.INVALID_CONFIG, `Invalid value ${target} for configuration ${SCHEDULE_TARGET}: ${why}`);
  if (target === name) throw invalid('a schedule topic cannot deliver to itself');
  const t = topics.topic(target);
  if (!t) throw invalid(`topic '${target}' does not exist (create the target first)`);
  if (t.isInternal) throw invalid('the target cannot be an internal topic');
  if (t.configs['samsa.view.source'] !== undefined) throw invalid(`'${target}' is a view, which is read-only`);
}

/**
 * AlterConfigs: the target and the delay are fixed at creation. The scheduler's checkpoint
 * decides which records were delivered from their due times, and its recovery looks for past
 * deliveries in the target: changing either under it could deliver a record twice.
 */
export function checkScheduleAlter(current: Record<string, string>, next: Record<string, string>): void {
  for (const k of [SCHEDULE_TARGET, SCHEDULE_DELAY_MS]) {
    if ((current[k] ?? '') !== (next[k] ?? '')) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `${k} is set at creation only and cannot be changed`);
  }
}
