/** Share group API handlers (KIP-932). */
import type { Handler } from '../handler.js';
import { shareGroupHeartbeatHandler } from './076-share-group-heartbeat.js';
import { shareGroupDescribeHandler } from './077-share-group-describe.js';
import { shareFetchHandler } from './078-share-fetch.js';
import { shareAcknowledgeHandler } from './079-share-acknowledge.js';
import { describeShareGroupOffsetsHandler } from './090-describe-share-group-offsets.js';
import { alterShareGroupOffsetsHandler } from './091-alter-share-group-offsets.js';
import { deleteShareGroupOffsetsHandler } from './092-delete-share-group-offsets.js';

export const shareHandlers: Handler<any>[] = [
  shareGroupHeartbeatHandler,
  shareGroupDescribeHandler,
  shareFetchHandler,
  shareAcknowledgeHandler,
  describeShareGroupOffsetsHandler,
  alterShareGroupOffsetsHandler,
  deleteShareGroupOffsetsHandler,
];
