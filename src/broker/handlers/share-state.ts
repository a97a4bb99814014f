/** The share coordinator's inter-broker APIs (KIP-932): keys 83-87. */
import type { Handler } from '../handler.js';
import { initializeShareGroupStateHandler } from './083-initialize-share-group-state.js';
import { readShareGroupStateHandler } from './084-read-share-group-state.js';
import { writeShareGroupStateHandler } from './085-write-share-group-state.js';
import { deleteShareGroupStateHandler } from './086-delete-share-group-state.js';
import { readShareGroupStateSummaryHandler } from './087-read-share-group-state-summary.js';

export const shareStateHandlers: Handler<any>[] = [
  initializeShareGroupStateHandler,
  readShareGroupStateHandler,
  writeShareGroupStateHandler,
  deleteShareGroupStateHandler,
  readShareGroupStateSummaryHandler,
];
