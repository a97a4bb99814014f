/** Library entry: `import { startBroker } from 'samsa'`. */
export { startBroker, type StartBrokerOptions, type RunningBroker } from './testing/start-broker.js';
export { Broker, type BrokerOptions } from './broker/broker.js';
export { loadConfig, type BrokerConfig } from './config.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
