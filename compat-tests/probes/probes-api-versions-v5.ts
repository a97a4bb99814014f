/**
 * Probes: ApiVersions v5 (KIP-1242), whose request names the cluster id and node id the client
 * means to reach. The ids differ between the two brokers, so each probe takes its broker's own
 * from a Metadata answer and changes what it is about.
 */
import { apiKeysAsMap } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

const sw = { clientSoftwareName: 'samsa-probe', clientSoftwareVersion: '1.0.0' };

async function setup(ctx: ProbeCtx): Promise<void> {
  if (ctx.state.v5Cluster !== undefined) return;
  const md = await ctx.call(3, 12, { topics: [], allowAutoTopicCreation: false });
  ctx.state.v5Cluster = md.clusterId;
  ctx.state.v5Node = md.brokers[0].nodeId;
}

type Ids = (cluster: string, node: number) => { clusterId: string | null; nodeId: number; clientSoftwareName?: string };

function probe(id: string, about: string, ids: Ids): Probe {
  return {
    id: `api-versions/v5-${id}`,
    api: 18,
    version: 5,
    about,
    setup,
    body: (ctx) => ({ ...sw, ...ids(ctx.state.v5Cluster, ctx.state.v5Node) }),
    normalise: apiKeysAsMap,
  };
}

export function apiVersionsV5Probes(): Probe[] {
  return [
    probe('no-ids', 'neither cluster id nor node id (null, -1)', () => ({ clusterId: null, nodeId: -1 })),
    probe('matching', 'this broker\'s cluster id and node id', (c, n) => ({ clusterId: c, nodeId: n })),
    probe('wrong-node', 'this cluster, another node id', (c, n) => ({ clusterId: c, nodeId: n + 100 })),
    probe('wrong-cluster', 'another cluster id, this node id', (_c, n) => ({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', nodeId: n })),
    probe('cluster-only', 'this cluster id, node id -1', (c) => ({ clusterId: c, nodeId: -1 })),
    probe('wrong-cluster-only', 'another cluster id, node id -1', () => ({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', nodeId: -1 })),
    probe('node-only', 'no cluster id, another node id', (_c, n) => ({ clusterId: null, nodeId: n + 100 })),
    probe('negative-node', 'this cluster id, node id -5', (c) => ({ clusterId: c, nodeId: -5 })),
    probe('empty-cluster', 'an empty cluster id, this node id', (_c, n) => ({ clusterId: '', nodeId: n })),
    probe('bad-name-wrong-node', 'an invalid software name and another node id: which check comes first', (c, n) => ({ clusterId: c, nodeId: n + 100, clientSoftwareName: 'bad name!' })),
  ];
}
