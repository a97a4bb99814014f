/**
 * The admin handler tests' wire client: a KafkaConnection (src/protocol/kafka-connection.ts) that
 * encodes and decodes with the generated codecs, so the tests cover codec + dispatch + handler for
 * the exact version asked for; `send(apiKey, version, body)` resolves with the decoded response.
 */
import { KafkaConnection } from '../../../src/protocol/kafka-connection.js';
import { startBroker, type RunningBroker, type StartBrokerOptions } from '../../../src/testing/start-broker.js';

export type WireClient = KafkaConnection;
export const WireClient = {
  connect: (port: number, host = '127.0.0.1'): Promise<WireClient> =>
    KafkaConnection.connect({ host, port, clientId: 'admin-test', connectTimeoutMs: 4000, requestTimeoutMs: 4000 }),
};

/**
 * Registers a suite's hooks: before, a broker on port 0 and a WireClient to it, handed to `ready`
 * (which may add topics); after, both closed.
 */
export function withBroker(
  suite: { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void },
  options: StartBrokerOptions,
  ready: (b: RunningBroker, c: WireClient) => Promise<void> | void,
): void {
  let b: RunningBroker | undefined;
  let c: WireClient | undefined;
  suite.before(async () => {
    b = await startBroker(options);
    c = await WireClient.connect(b.port);
    await ready(b, c);
  });
  suite.after(async () => {
    c?.close();
    await b?.stop();
  });
}
