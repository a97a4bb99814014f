/**
 * DescribeProducers (key 61), version 0: the producer state of each requested partition
 * (producer id, epoch, last sequence, last timestamp, coordinator epoch, first offset of the open
 * transaction or -1). Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION, with the error's
 * default text for an unknown topic (as Kafka 4.4 answers). A partition this broker does not
 * lead: NOT_LEADER_OR_FOLLOWER.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { leaderPartition } from '../leader-hints.js';

export const describeProducersHandler = defineHandler({
  apiKey: 61,
  handle(ctx, req) {
    const broker = ctx.broker;
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => {
          // ACLs: READ on the topic.
          if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.name)) {
            return { partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.', activeProducers: [] };
          }
          const info = broker.metadataCache.topic(t.name);
          const partition = leaderPartition(broker, info, partitionIndex, -1);
          // Kafka 4.4 sets the error's text for an unknown topic, none for an unknown partition.
          if (typeof partition === 'number') {
            return { partitionIndex, errorCode: partition, errorMessage: info ? null : 'This server does not host this topic-partition.', activeProducers: [] };
          }
          const log = partition.log;
          return {
            partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null,
            activeProducers: log.producerState.activeProducers().map((e) => ({
              producerId: BigInt(e.producerId),
              producerEpoch: e.producerEpoch,
              lastSequence: e.batches.length > 0 ? e.batches[e.batches.length - 1].lastSeq : -1,
              // Kafka reports the max timestamp of the producer's last batch (its state's
              // lastTimestamp); Samsa's state keeps broker time there for expiry, the batch's own.
              lastTimestamp: BigInt(e.batches.length > 0 ? e.batches[e.batches.length - 1].timestamp : e.lastTimestamp),
              coordinatorEpoch: e.coordinatorEpoch,
              currentTxnStartOffset: BigInt(e.currentTxnFirstOffset),
            })),
          };
        }),
      })),
    };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode, errorMessage: null, activeProducers: [] })) })),
    };
  },
});
