/** A broker on port 0 with one topic created over the wire (for the network tests). */
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { KafkaConn, createTopics } from '../../bench/lib/kafka-conn.js';

export async function brokerWithTopic(name: string, partitions: number): Promise<RunningBroker> {
  const b = await startBroker({ port: 0 });
  try {
    const setup = await KafkaConn.connect('127.0.0.1', b.port);
    await createTopics(setup, [{ name, partitions }]);
    setup.close();
  } catch (err) {
    await b.stop();
    throw err;
  }
  return b;
}
