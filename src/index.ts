/** Library entry: `import { startBroker, ManualClock } from 'samsa'`. */
export {
  startBroker,
  type StartBrokerOptions,
  type StartBrokerBaseOptions,
  type KafkaSettingValue,
  type RunningBroker,
} from './testing/start-broker.js';
export {
  BrokerControl,
  type ApiName,
  type ApiKeyLike,
  type ErrorCodeLike,
  type RequestMatch,
  type InjectErrorOptions,
  type LatencyOptions,
  type DropOptions,
  type HoldOptions,
  type Rule,
  type RecordedExchange,
  type Recording,
  type HeldRequest,
  type WaitOptions,
} from './testing/control.js';
export { type GroupView, type GroupSnapshot } from './testing/group-view.js';
export { Broker, type BrokerOptions } from './broker/broker.js';
export { loadConfig, type BrokerConfig } from './config.js';
export { ManualClock, systemClock, type Clock, type Timer } from './clock.js';
export { ErrorCode, type ErrorCodeName } from './protocol/generated/error-codes.js';
export { ApiKey, type ApiTypes } from './protocol/generated/api-table.js';
export { MemFs, type Fs } from './storage/fs.js';
export type { LogLevel } from './logger.js';
export { MemoryObjectStore } from './remote/memory-object-store.js';
export { ObjectStoreError, type ObjectStore, type ObjectInfo, type ObjectBody } from './remote/object-store.js';
