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

export function checkScheduleConfigs(name: string, configs: Record<string, string>, topics: { get(name: string): TopicLike | undefined }): void {
  const target = configs[SCHEDULE_TARGET];
  if (target === undefined || target === '') {
    for (const k of [SCHEDULE_DELAY_MS, SCHEDULE_TICK_MS]) {
      if (configs[k] !== undefined) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `${k} needs ${SCHEDULE_TARGET} (the topic records are delivered to)`);
    }
    return;
  }
  const invalid = (why: string) => new KafkaApiError(ErrorCode.INVALID_CONFIG, `Invalid value ${target} for configuration ${SCHEDULE_TARGET}: ${why}`);
  if (target === name) throw invalid('a schedule topic cannot deliver to itself');
  const t = topics.get(target);
  if (!t) throw invalid(`topic '${target}' does not exist (create the target first)`);
  if (t.isInternal) throw invalid('the target cannot be an internal topic');
  if (t.configs['samsa.view.source'] !== undefined) throw invalid(`'${target}' is a view, which is read-only`);
}
