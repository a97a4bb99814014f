/** Every probe, in the order they run (each set-up uses fresh names of its own). */
import { aclProbes, quotaProbes } from './probes-acls.js';
import { adminProbes, destructiveProbes } from './probes-admin.js';
import { brokerConfigProbes } from './probes-broker-configs.js';
import { captureProbes } from './probes-captures.js';
import { coreProbes } from './probes-core.js';
import { dataProbes } from './probes-fetch.js';
import { groupProbes } from './probes-groups.js';
import { consumerGroupProbes } from './probes-consumer-groups.js';
import { groupConfigProbes } from './probes-group-configs.js';
import { listConfigResourcesProbes } from './probes-list-config-resources.js';
import { produceProbes } from './probes-produce.js';
import { txnProbes } from './probes-txn.js';
import { featureProbes } from './probes-features.js';
import { kafka44Probes } from './probes-kafka44.js';
import { apiVersionsV5Probes } from './probes-api-versions-v5.js';
import { clientTelemetryProbes } from './probes-client-telemetry.js';
import { describeQuorumProbes, raftVoterProbes, unregisterBrokerProbes, unregisterControllerProbes } from './probes-describe-quorum.js';
import { scramProbes } from './probes-scram.js';
import { delegationTokenProbes } from './probes-delegation-tokens.js';
import { shareStateProbes } from './probes-share-state.js';
import { shareGroupProbes } from './probes-share-groups.js';
import { streamsGroupProbes } from './probes-streams-groups.js';
import type { Probe } from './runner.js';

export function allProbes(): Probe[] {
  return [...coreProbes(), ...produceProbes(), ...dataProbes(), ...adminProbes(), ...brokerConfigProbes(), ...groupProbes(), ...consumerGroupProbes(), ...groupConfigProbes(), ...listConfigResourcesProbes(), ...txnProbes(), ...featureProbes(), ...kafka44Probes(), ...apiVersionsV5Probes(), ...clientTelemetryProbes(), ...describeQuorumProbes(), ...raftVoterProbes(), ...unregisterBrokerProbes(), ...unregisterControllerProbes(), ...aclProbes(), ...quotaProbes(), ...scramProbes(), ...delegationTokenProbes(), ...shareStateProbes(), ...shareGroupProbes(), ...streamsGroupProbes(), ...captureProbes(), ...destructiveProbes()];
}
