/** Every registered handler; ApiVersions advertises exactly these (see dispatch.ts). */
import type { Handler } from '../handler.js';
import { produceHandler } from './000-produce.js';
import { fetchHandler } from './001-fetch.js';
import { listOffsetsHandler } from './002-list-offsets.js';
import { metadataHandler } from './003-metadata.js';
import { findCoordinatorHandler } from './010-find-coordinator.js';
import { saslAuthenticateHandler, saslHandshakeHandler } from './017-sasl-handshake.js';
import { apiVersionsHandler } from './018-api-versions.js';
import { offsetForLeaderEpochHandler } from './023-offset-for-leader-epoch.js';
import { createDelegationTokenHandler } from './038-create-delegation-token.js';
import { renewDelegationTokenHandler } from './039-renew-delegation-token.js';
import { expireDelegationTokenHandler } from './040-expire-delegation-token.js';
import { describeDelegationTokenHandler } from './041-describe-delegation-token.js';
import { describeUserScramCredentialsHandler } from './050-describe-user-scram-credentials.js';
import { alterUserScramCredentialsHandler } from './051-alter-user-scram-credentials.js';
import { describeQuorumHandler } from './055-describe-quorum.js';
import { addRaftVoterHandler } from './080-add-raft-voter.js';
import { removeRaftVoterHandler } from './081-remove-raft-voter.js';
import { unregisterBrokerHandler } from './064-unregister-broker.js';
import { unregisterControllerHandler } from './094-unregister-controller.js';
import { getTelemetrySubscriptionsHandler } from './071-get-telemetry-subscriptions.js';
import { pushTelemetryHandler } from './072-push-telemetry.js';
import { aclHandlers } from './acls.js';
import { quotaHandlers } from './quotas.js';
import { adminHandlers } from './admin.js';
import { groupHandlers } from './groups.js';
import { txnHandlers } from './txn.js';
import { shareStateHandlers } from './share-state.js';
import { shareHandlers } from './share.js';
import { streamsHandlers } from './streams.js';

export const allHandlers: Handler<any>[] = [
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  metadataHandler,
  findCoordinatorHandler,
  saslHandshakeHandler,
  apiVersionsHandler,
  saslAuthenticateHandler,
  offsetForLeaderEpochHandler,
  createDelegationTokenHandler,
  renewDelegationTokenHandler,
  expireDelegationTokenHandler,
  describeDelegationTokenHandler,
  describeUserScramCredentialsHandler,
  alterUserScramCredentialsHandler,
  describeQuorumHandler,
  unregisterBrokerHandler,
  unregisterControllerHandler,
  getTelemetrySubscriptionsHandler,
  pushTelemetryHandler,
  addRaftVoterHandler,
  removeRaftVoterHandler,
  ...adminHandlers,
  ...groupHandlers,
  ...shareHandlers,
  ...streamsHandlers,
  ...txnHandlers,
  ...shareStateHandlers,
  ...aclHandlers,
  ...quotaHandlers,
];
