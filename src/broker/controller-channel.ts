/**
 * How a broker gets controller work done (Kafka's ForwardingManager over the
 * BrokerToControllerChannelManager): on the active controller the work runs in-process; on any
 * other broker the request goes to the controller over the inter-broker client, as the Kafka
 * request it is (CreateTopics, CreatePartitions, DeleteTopics), and the controller's answer comes
 * back.
 *
 * Why forwarding rather than writing requests into etcd for the controller to pick up: the
 * controller already validates and answers these requests in its own handlers, with Kafka's
 * messages; forwarding reuses that path unchanged and the inter-broker client exists anyway for
 * replication. A request queue in etcd would need its own result keys, clean-up, and a rule for
 * requests a dead controller had taken but not answered.
 *
 * A forwarded request is marked by its client id. A broker that receives one but is no longer the
 * controller answers NOT_CONTROLLER instead of forwarding it again (two brokers with caches a few
 * milliseconds apart must not bounce it between them); the sender then waits until its cache
 * names another controller and tries there, until the request's timeout.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Logger } from '../logger.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import { BrokerConnectionError, type BrokerClient, type BrokerClientPool } from '../replication/broker-client.js';

const FORWARDED_CLIENT_ID = 'samsa-forwarded';

/** The client id of the requests a broker forwards to the controller. */
export function forwardingClientId(nodeId: number): string {
  return `${FORWARDED_CLIENT_ID}-by-${nodeId}`;
}

/** Whether a request came from another broker's ControllerChannel. */
export function isForwarded(clientId: string | null): boolean {
  return clientId !== null && clientId.startsWith(FORWARDED_CLIENT_ID);
}

/** Returned by a `remote` call when the controller said NOT_CONTROLLER: try the next one. */
export const RETRY = Symbol('retry');

export interface ControllerChannelOptions {
  metadataCache: MetadataCache;
  nodeId: number;
  clients: BrokerClientPool;
  isActiveController: () => boolean;
  logger: Logger;
}

export class ControllerChannel {
  constructor(private readonly opts: ControllerChannelOptions) {}

  /**
   * Runs `local` on the active controller; elsewhere `remote` with a client to the controller.
   * `forwarded`: this call serves a request another broker forwarded (never forwarded again).
   */
  async route<T>(
    what: string,
    timeoutMs: number,
    forwarded: boolean,
    local: () => Promise<T>,
    remote: (client: BrokerClient) => Promise<T | typeof RETRY>,
  ): Promise<T> {
    const { metadataCache: cache } = this.opts;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.opts.isActiveController()) return local();
      if (forwarded) throw new KafkaApiError(ErrorCode.NOT_CONTROLLER, `broker ${this.opts.nodeId} is not the active controller`);
      const seen = cache.controller;
      const target = seen && seen.nodeId !== this.opts.nodeId ? this.opts.clients.get(seen.nodeId, 'controller') : null;
      if (target) {
        try {
          const out = await remote(target);
          if (out !== RETRY) return out;
        } catch (err) {
          if (!(err instanceof BrokerConnectionError)) throw err;
          this.opts.logger.warn(`${what}: controller ${seen?.nodeId} unreachable (${err.message}); waiting for the next one`);
        }
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new KafkaApiError(ErrorCode.REQUEST_TIMED_OUT, `${what}: no active controller answered within ${timeoutMs} ms`);
      }
      // Wait for another controller (or for this broker to become it), at most a moment, then look again.
      const epoch = seen?.controllerEpoch ?? null;
      await cache.waitFor(
        (c) => this.opts.isActiveController() || (c.controller?.controllerEpoch ?? null) !== epoch,
        Math.min(remaining, 500),
      ).catch(() => undefined);
    }
  }
}
