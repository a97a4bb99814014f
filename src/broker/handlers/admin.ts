/** Admin API handlers (topics, records, configs, cluster). */
import type { Handler } from '../handler.js';
import { createTopicsHandler } from './019-create-topics.js';
import { deleteTopicsHandler } from './020-delete-topics.js';
import { deleteRecordsHandler } from './021-delete-records.js';
import { describeConfigsHandler } from './032-describe-configs.js';
import { alterConfigsHandler } from './033-alter-configs.js';
import { alterReplicaLogDirsHandler } from './034-alter-replica-log-dirs.js';
import { describeLogDirsHandler } from './035-describe-log-dirs.js';
import { createPartitionsHandler } from './037-create-partitions.js';
import { electLeadersHandler } from './043-elect-leaders.js';
import { incrementalAlterConfigsHandler } from './044-incremental-alter-configs.js';
import { alterPartitionReassignmentsHandler } from './045-alter-partition-reassignments.js';
import { listPartitionReassignmentsHandler } from './046-list-partition-reassignments.js';
import { describeClusterHandler } from './060-describe-cluster.js';
import { listConfigResourcesHandler } from './074-list-config-resources.js';
import { describeTopicPartitionsHandler } from './075-describe-topic-partitions.js';

import { updateFeaturesHandler } from './057-update-features.js';

export const adminHandlers: Handler<any>[] = [
  createTopicsHandler,
  deleteTopicsHandler,
  deleteRecordsHandler,
  describeConfigsHandler,
  alterConfigsHandler,
  alterReplicaLogDirsHandler,
  describeLogDirsHandler,
  createPartitionsHandler,
  electLeadersHandler,
  incrementalAlterConfigsHandler,
  alterPartitionReassignmentsHandler,
  listPartitionReassignmentsHandler,
  describeClusterHandler,
  listConfigResourcesHandler,
  describeTopicPartitionsHandler,
  updateFeaturesHandler,
];
