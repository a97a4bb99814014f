/** Group coordinator API handlers (consumer groups and committed offsets). */
import type { Handler } from '../handler.js';
import { offsetCommitHandler } from './008-offset-commit.js';
import { offsetFetchHandler } from './009-offset-fetch.js';
import { joinGroupHandler } from './011-join-group.js';
import { heartbeatHandler } from './012-heartbeat.js';
import { leaveGroupHandler } from './013-leave-group.js';
import { syncGroupHandler } from './014-sync-group.js';
import { describeGroupsHandler } from './015-describe-groups.js';
import { listGroupsHandler } from './016-list-groups.js';
import { deleteGroupsHandler } from './042-delete-groups.js';
import { offsetDeleteHandler } from './047-offset-delete.js';
import { consumerGroupHeartbeatHandler } from './068-consumer-group-heartbeat.js';
import { consumerGroupDescribeHandler } from './069-consumer-group-describe.js';

export const groupHandlers: Handler<any>[] = [
  offsetCommitHandler,
  offsetFetchHandler,
  joinGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  syncGroupHandler,
  describeGroupsHandler,
  listGroupsHandler,
  deleteGroupsHandler,
  offsetDeleteHandler,
  consumerGroupHeartbeatHandler,
  consumerGroupDescribeHandler,
];
