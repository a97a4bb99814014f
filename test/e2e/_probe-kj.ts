import kafkajs from 'kafkajs';
import { startBroker } from '../../src/testing/start-broker.js';
const { Kafka, logLevel } = kafkajs;
const b = await startBroker({ port: 0 });
const kafka = new Kafka({ clientId: 'x', brokers: [`127.0.0.1:${b.port}`], logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 100 } });
const admin = kafka.admin(); await admin.connect();
try { await admin.deleteTopics({ topics: ['nope'], timeout: 5000 }); } catch (e: any) { console.log(e.name, e.message, e.originalError?.name, e.originalError?.type, Object.keys(e), e.originalError && Object.keys(e.originalError)); }
await admin.createTopics({ topics: [{ topic: 't' }] });
const p = kafka.producer(); await p.connect(); await p.send({ topic: 't', messages: [{ value: 'a' }] }); await p.disconnect();
await admin.fetchTopicMetadata({ topics: ['t'] });
try { await admin.deleteTopicRecords({ topic: 't', partitions: [{ partition: 0, offset: '11' }] }); } catch (e: any) { console.log(e.name, e.message, JSON.stringify(e.partitions ?? e.errors), e.cause?.message, e.originalError?.partitions?.map((x: any) => x.error.type)); console.log(Object.keys(e)); }
await admin.disconnect(); await b.stop();
