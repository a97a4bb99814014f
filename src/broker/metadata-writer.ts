/**
 * The one way this broker writes to the cluster metadata outside the controller's own decisions
 * (configs, ACLs, client quotas, SCRAM credentials): fence the write (the controller epoch on the
 * active controller, this broker's epoch elsewhere, so a stale broker cannot write), write, then
 * wait until this broker's metadata cache shows the change and the replica manager applied it, so
 * the client's next request here sees it.
 */
import type { ClusterMember } from '../cluster/cluster-member.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { Fence, MetadataStore } from '../cluster/metadata-store.js';
import type { ReplicaManager } from '../replication/replica-manager.js';

/** How long a change may take to show in this broker's cache. */
const CACHE_WAIT_MS = 30_000;

export class MetadataWriter {
  constructor(private readonly env: { cluster: ClusterMember; metadataCache: MetadataCache; replicaManager: ReplicaManager }) {}

  /** The fence of a write from this broker. */
  get fence(): Fence {
    const controllerEpoch = this.env.cluster.controller.controllerEpoch;
    return controllerEpoch !== null ? { controllerEpoch } : this.env.cluster.lifecycle.fence;
  }

  /** Writes with the fence, then waits until this broker's cache shows `shows`. */
  async write(what: string, write: (store: MetadataStore, fence: Fence) => Promise<unknown>, shows: (c: MetadataCache) => boolean): Promise<void> {
    await write(this.env.cluster.store, this.fence);
    await this.applied(shows, `${what} in the metadata cache`);
  }

  /** Waits until this broker's cache shows `done`, then until the replica manager applied it. */
  async applied(done: (c: MetadataCache) => boolean, what: string): Promise<void> {
    await this.env.metadataCache.waitFor(done, CACHE_WAIT_MS, what);
    await this.env.replicaManager.applied(this.env.metadataCache.revision);
  }
}
