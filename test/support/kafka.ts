/**
 * Real Apache Kafka for tests that compare Samsa with it (differential tests, protocol probes).
 *
 * `kafkaOrSkip(what)` starts the pinned release (tools/kafka/kafka.ts) on a free port and resolves
 * with it; where this machine cannot run it (no java, no mvn, or the jars cannot be resolved) it
 * prints one line saying so and resolves with null, and the caller skips its Kafka-side checks.
 * Under CI (`CI=true`) that absence is a failure instead: the promise rejects.
 */
import { javaMissing, startKafka, type KafkaOptions, type RunningKafka } from '../../tools/kafka/kafka.js';

export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

export async function kafkaOrSkip(what: string, opts: KafkaOptions = {}): Promise<RunningKafka | null> {
  const missing = javaMissing();
  let reason = missing;
  if (!reason) {
    try {
      return await startKafka({ onLine: () => {}, ...opts });
    } catch (e) {
      reason = (e as Error).message.split('\n')[0];
      if (IN_CI) throw e;
    }
  }
  if (IN_CI) throw new Error(`${what}: real Apache Kafka is required under CI but cannot run here: ${reason}`);
  console.log(`${what}: Kafka side skipped: ${reason}`);
  return null;
}
