/**
 * Samsa in a container, started with testcontainers' GenericContainer from the repository's
 * Dockerfile: for users whose tests prefer containers to an in-process `startBroker()`.
 *
 *   import { startSamsaContainer } from './compat-tests/samsa-container.js';
 *   const samsa = await startSamsaContainer();          // builds the image once (cached by Docker)
 *   // clients: brokers: [samsa.bootstrap]
 *   await samsa.stop();
 *
 * Run directly (`npx tsx compat-tests/samsa-container.ts`) it starts the container, prints the
 * bootstrap address, runs one produce/read round trip with kafkajs and stops. Without a reachable
 * Docker engine it prints one line and exits 0.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';
import { freePort } from './lib/targets.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface SamsaContainer {
  bootstrap: string;
  container: StartedTestContainer;
  stop(): Promise<void>;
}

/** Thrown (with a one-line message) when no Docker engine is reachable. */
export class NoDocker extends Error {}

export async function startSamsaContainer(opts: { settings?: Record<string, string> } = {}): Promise<SamsaContainer> {
  try {
    await getContainerRuntimeClient();
  } catch (e) {
    throw new NoDocker(`samsa container skipped: no Docker engine reachable (${String((e as Error).message ?? e).split('\n')[0]})`);
  }
  const image = await GenericContainer.fromDockerfile(ROOT).withCache(true).build('samsa:testcontainers', { deleteOnExit: false });
  // Kafka clients connect to the advertised address, so the host port is fixed and advertised.
  const port = await freePort();
  const env: Record<string, string> = { KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}` };
  for (const [k, v] of Object.entries(opts.settings ?? {})) env[`KAFKA_${k.toUpperCase().replace(/\./g, '_')}`] = v;
  const container = await image
    .withEnvironment(env)
    .withExposedPorts({ container: 9092, host: port })
    .withWaitStrategy(Wait.forLogMessage(/Samsa started/))
    .withStartupTimeout(60_000)
    .start();
  return { bootstrap: `127.0.0.1:${port}`, container, stop: async () => { await container.stop(); } };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  try {
    const s = await startSamsaContainer();
    console.log(`samsa container at ${s.bootstrap}`);
    const { default: kafkajs } = await import('kafkajs');
    const kafka = new kafkajs.Kafka({ brokers: [s.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const [r] = await producer.send({ topic: 'hello', messages: [{ value: 'from a container' }] });
    await producer.disconnect();
    console.log(`produced at offset ${r.baseOffset}`);
    await s.stop();
  } catch (e) {
    if (e instanceof NoDocker) {
      console.log(e.message);
      process.exit(0);
    }
    throw e;
  }
}
