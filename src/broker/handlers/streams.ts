/** Streams group API handlers (KIP-1071). */
import type { Handler } from '../handler.js';
import { streamsGroupHeartbeatHandler } from './088-streams-group-heartbeat.js';
import { streamsGroupDescribeHandler } from './089-streams-group-describe.js';
import { streamsGroupTopologyDescriptionUpdateHandler } from './093-streams-group-topology-description-update.js';

export const streamsHandlers: Handler<any>[] = [
  streamsGroupHeartbeatHandler,
  streamsGroupDescribeHandler,
  streamsGroupTopologyDescriptionUpdateHandler,
];
