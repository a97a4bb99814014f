/**
 * The two brokers the probes compare: one Samsa in this process and one real Apache Kafka
 * (tools/kafka, through kafkaOrSkip), both with the suite's broker settings; or Samsa alone, when
 * Kafka's side is recorded (recording.ts).
 */
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { kafkaOrSkip } from '../../test/support/kafka.js';
import type { RunningKafka } from '../../tools/kafka/kafka.js';
import { SUITE_BROKER_CONFIG } from '../lib/targets.js';

export interface ProbeBrokers {
  samsa: RunningBroker;
  kafka: RunningKafka;
  stop(): Promise<void>;
}

/** The probes' Samsa. */
export function startSamsaForProbes(): Promise<RunningBroker> {
  // tools/kafka sets auto.create.topics.enable explicitly (its value is Kafka's default): so does
  // Samsa's, or DescribeConfigs would show STATIC_BROKER_CONFIG against DEFAULT_CONFIG.
  return startBroker({ port: 0, config: { ...SUITE_BROKER_CONFIG, 'auto.create.topics.enable': 'true' } });
}

/** Starts both (in parallel), or resolves with null when Kafka cannot run here (kafkaOrSkip said why). */
export async function startProbeBrokers(what: string): Promise<ProbeBrokers | null> {
  const [kafka, samsa] = await Promise.all([kafkaOrSkip(what, { overrides: { ...SUITE_BROKER_CONFIG } }), startSamsaForProbes()]);
  if (!kafka) {
    await samsa.stop();
    return null;
  }
  return {
    samsa,
    kafka,
    async stop() {
      await Promise.allSettled([samsa.stop(), kafka.stop()]);
    },
  };
}
