import { Admin } from '@platformatic/kafka';
import { startBroker } from '../../src/testing/start-broker.js';
const b = await startBroker({ port: 0, logLevel: 'debug' });
const admin = new Admin({ clientId: 'x', bootstrapBrokers: [`127.0.0.1:${b.port}`], retries: 0, timeout: 5000 });
try {
  await admin.createTopics({ topics: ['pf-admin'], partitions: 3, replicas: 1 });
  await admin.createPartitions({ topics: [{ name: 'pf-admin', count: 5, assignments: [] }] });
} catch (e: any) {
  console.log('ERR', e.message, JSON.stringify(e, (k, v) => typeof v === 'bigint' ? String(v) : v, 1).slice(0, 3000));
  console.log(e.errors?.map((x: any) => [x.message, x.response && JSON.stringify(x.response, (k, v) => typeof v === 'bigint' ? String(v) : v)]));
}
await admin.close(); await b.stop();
