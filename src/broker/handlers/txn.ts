/** Idempotent-producer and transaction handlers. */
import type { Handler } from '../handler.js';
import { initProducerIdHandler } from './022-init-producer-id.js';
import { addPartitionsToTxnHandler } from './024-add-partitions-to-txn.js';
import { addOffsetsToTxnHandler } from './025-add-offsets-to-txn.js';
import { endTxnHandler } from './026-end-txn.js';
import { writeTxnMarkersHandler } from './027-write-txn-markers.js';
import { txnOffsetCommitHandler } from './028-txn-offset-commit.js';
import { describeProducersHandler } from './061-describe-producers.js';
import { describeTransactionsHandler } from './065-describe-transactions.js';
import { listTransactionsHandler } from './066-list-transactions.js';

export const txnHandlers: Handler<any>[] = [
  initProducerIdHandler,
  addPartitionsToTxnHandler,
  addOffsetsToTxnHandler,
  endTxnHandler,
  writeTxnMarkersHandler,
  txnOffsetCommitHandler,
  describeProducersHandler,
  describeTransactionsHandler,
  listTransactionsHandler,
];
