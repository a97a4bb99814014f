/**
 * DescribeProducers (key 61), version 0: the producer state of each requested partition
 * (producer id, epoch, last sequence, last timestamp, coordinator epoch, first offset of the open
 * transaction or -1). Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';

export const describeProducersHandler = defineHandler({
  apiKey: 61,
  handle(ctx, req) {
    const broker = ctx.broker;
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => {
          const log = broker.metadata.get(t.name) ? broker.getLog(t.name, partitionIndex) : undefined;
          if (!log) return { partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null, activeProducers: [] };
          return {
            partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null,
            activeProducers: log.activeProducers().map((e) => ({
              producerId: BigInt(e.producerId),
              producerEpoch: e.producerEpoch,
              lastSequence: e.batches.length > 0 ? e.batches[e.batches.length - 1].lastSeq : -1,
              lastTimestamp: BigInt(e.lastTimestamp),
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
