/**
 * Registers scenarios written once for Samsa and Kafka (consumer-protocol-scenarios.ts,
 * share-groups-scenarios.ts) as uvu tests against one in-process Samsa broker with `config`.
 * `missing` (a tool this machine lacks, e.g. java) turns each test into one printed line.
 * Not a test file (no `.test.ts`): the runner does not pick it up.
 */
import { test } from 'uvu';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { hostPort } from '../support/clients.js';

export interface SamsaScenario {
  name: string;
  run(bootstrap: string, label: string): Promise<void>;
}

export function scenarioTestsOnSamsa(config: Record<string, string>, scenarios: readonly SamsaScenario[], missing: string | null = null): void {
  let b: RunningBroker | undefined;
  test.before(async () => {
    if (!missing) b = await startBroker({ port: 0, config });
  });
  test.after(async () => {
    await b?.stop();
  });
  for (const s of scenarios) {
    test(s.name, async () => {
      if (missing) return void console.log(`skipped: ${missing}`);
      await s.run(hostPort(b!.port), 'samsa');
    });
  }
}
