/**
 * A broker's membership of the cluster (Kafka's BrokerLifecycleManager): register, stay
 * registered, notice when that is no longer true, leave.
 *
 * - Registration: a session (an etcd lease of broker.session.timeout.ms) and the key
 *   `brokers/<node.id>` bound to it, holding the endpoints, the rack and a fresh incarnation id.
 *   The store hands back the broker epoch. A node.id held by a live broker is refused with
 *   DuplicateBrokerRegistrationError; with `registrationRetryMs` the manager keeps trying that
 *   long first, which is what a broker restarted right after a crash needs while its previous
 *   incarnation's lease runs out (Kafka's broker retries its registration the same way).
 * - Heartbeats: a lease keep-alive every broker.heartbeat.interval.ms (at most a third of the
 *   session timeout).
 * - Loss: 'lost' is emitted once, and heartbeats stop, when the store says the session is gone,
 *   or when no keep-alive has been acknowledged for a whole session timeout. The second rule is
 *   what makes a broker cut off from etcd stop acting as a member before etcd expires its lease:
 *   etcd starts a lease's new TTL when it receives the keep-alive, so counting from when the
 *   keep-alive was sent never outlives etcd's view.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import {
  DuplicateBrokerRegistrationError, SessionExpiredError,
  type BrokerEndpoint, type BrokerRegistration, type Fence, type MetadataSession, type MetadataStore,
} from './metadata-store.js';

export interface BrokerLifecycleOptions {
  store: MetadataStore;
  nodeId: number;
  rack: string | null;
  endpoints: BrokerEndpoint[];
  /** The HTTP listener's base URLs (registered for Schema Registry forwarding). */
  httpUrls?: readonly string[];
  /** broker.session.timeout.ms (etcd leases have whole seconds: rounded up). */
  sessionTimeoutMs: number;
  /** broker.heartbeat.interval.ms */
  heartbeatIntervalMs: number;
  /** Keep retrying a refused registration this long before failing (default 0: fail at once). */
  registrationRetryMs?: number;
  logger?: Logger;
}

export type LifecycleState = 'registered' | 'lost' | 'stopped';

export class BrokerLifecycleManager extends EventEmitter<{ lost: [reason: Error] }> {
  readonly incarnationId: string;
  private _state: LifecycleState = 'registered';
  private timer: NodeJS.Timeout | null = null;
  private expiryTimer: NodeJS.Timeout | null = null;
  /** Until when the session is known to be alive: send time of the last acknowledged keep-alive + TTL. */
  private validUntil: number;
  private readonly intervalMs: number;

  private constructor(
    private readonly opts: BrokerLifecycleOptions,
    readonly session: MetadataSession,
    readonly registration: BrokerRegistration,
    aliveAt: number,
  ) {
    super();
    this.incarnationId = registration.incarnationId;
    this.validUntil = aliveAt + session.ttlMs;
    this.intervalMs = Math.max(50, Math.min(opts.heartbeatIntervalMs, Math.floor(session.ttlMs / 3)));
  }

  /** Registers and starts heart-beating; rejects with DuplicateBrokerRegistrationError or a store error. */
  static async start(opts: BrokerLifecycleOptions): Promise<BrokerLifecycleManager> {
    const incarnationId = randomUUID();
    const deadline = Date.now() + (opts.registrationRetryMs ?? 0);
    // When the session was last known alive: granted, then each acknowledged keep-alive while a
    // refused registration is retried (a session's validity counts from there, not from the grant).
    let aliveAt = Date.now();
    const session = await opts.store.grantSession(opts.sessionTimeoutMs);
    for (;;) {
      try {
        const reg = await opts.store.registerBroker({ nodeId: opts.nodeId, incarnationId, endpoints: opts.endpoints, rack: opts.rack, ...(opts.httpUrls?.length ? { httpUrls: [...opts.httpUrls] } : {}) }, session);
        const m = new BrokerLifecycleManager(opts, session, reg, aliveAt);
        opts.logger?.info(`broker ${opts.nodeId} registered in ${opts.store.description} (broker epoch ${reg.brokerEpoch}, incarnation ${incarnationId})`);
        m.schedule();
        return m;
      } catch (e) {
        if (!(e instanceof DuplicateBrokerRegistrationError) || Date.now() >= deadline) {
          await session.revoke().catch(() => {});
          throw e;
        }
        opts.logger?.info(`${e.message}; retrying for ${deadline - Date.now()} ms (a previous incarnation's session may still be running out)`);
        // The session must outlive the wait, or the retry would register on a dead lease.
        const sentAt = Date.now();
        if (await session.keepAlive(Math.min(2000, session.ttlMs)).then(() => true, () => false)) aliveAt = sentAt;
        await new Promise((r) => setTimeout(r, Math.min(250, Math.max(10, deadline - Date.now()))));
      }
    }
  }

  get state(): LifecycleState {
    return this._state;
  }

  get nodeId(): number {
    return this.registration.nodeId;
  }

  get brokerEpoch(): number {
    return this.registration.brokerEpoch;
  }

  /** The fence for writes this broker makes as itself (ISR changes). */
  get fence(): Fence {
    return { nodeId: this.registration.nodeId, brokerEpoch: this.registration.brokerEpoch };
  }

  private schedule(): void {
    this.armExpiry();
    this.timer = setTimeout(() => void this.beat(), this.intervalMs);
  }

  private armExpiry(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    // Fires even while a keep-alive call hangs (etcd paused or cut off).
    this.expiryTimer = setTimeout(() => {
      if (Date.now() >= this.validUntil) {
        this.lose(new SessionExpiredError(`broker ${this.nodeId}: no heartbeat acknowledged by ${this.opts.store.description} for ${this.session.ttlMs} ms (broker.session.timeout.ms)`));
      } else {
        this.armExpiry();
      }
    }, Math.max(1, this.validUntil - Date.now()));
  }

  private async beat(): Promise<void> {
    if (this._state !== 'registered') return;
    const sentAt = Date.now();
    try {
      await this.session.keepAlive(Math.max(100, Math.min(this.intervalMs * 2, this.validUntil - sentAt)));
      if (this._state !== 'registered') return;
      this.validUntil = Math.max(this.validUntil, sentAt + this.session.ttlMs);
      this.armExpiry();
    } catch (e) {
      if (this._state !== 'registered') return;
      if (e instanceof SessionExpiredError) {
        this.lose(new SessionExpiredError(`broker ${this.nodeId}: ${e.message} (broker epoch ${this.brokerEpoch})`));
        return;
      }
      this.opts.logger?.warn(`broker ${this.nodeId}: heartbeat to ${this.opts.store.description} failed (${(e as Error).message}); session valid for ${Math.max(0, this.validUntil - Date.now())} ms more`);
    }
    if (this._state === 'registered') this.timer = setTimeout(() => void this.beat(), this.intervalMs);
  }

  private stopTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.timer = this.expiryTimer = null;
  }

  private lose(reason: Error): void {
    if (this._state !== 'registered') return;
    this._state = 'lost';
    this.stopTimers();
    this.opts.logger?.warn(`broker ${this.nodeId} lost its registration: ${reason.message}`);
    this.emit('lost', reason);
  }

  /** Controlled shutdown begins: the registration says so, and the controller moves leaderships away. */
  async beginControlledShutdown(): Promise<void> {
    if (this._state !== 'registered') return;
    this.shuttingDown = true;
    await this.opts.store.markControlledShutdown(this.registration, this.session);
  }

  private shuttingDown = false;

  /**
   * Log dirs went offline (Kafka's BrokerHeartbeat offline_log_dirs): the registration lists them
   * and the replicas they held, so the controller takes those replicas out of their ISRs and
   * elects other leaders (offline-replicas.ts).
   */
  async reportOfflineLogDirs(offline: { offlineLogDirs: string[]; offlineReplicas: string[] }): Promise<void> {
    if (this._state !== 'registered') return;
    const reg = this.shuttingDown ? { ...this.registration, inControlledShutdown: true } : this.registration;
    await this.opts.store.updateBrokerRegistration(reg, this.session, { offlineLogDirs: [...offline.offlineLogDirs], offlineReplicas: [...offline.offlineReplicas] });
  }

  /** Controlled shutdown ends: deregister and end the session (the controller moves what is left at once). */
  async shutdown(): Promise<void> {
    if (this._state === 'stopped') return;
    const wasRegistered = this._state === 'registered';
    this._state = 'stopped';
    this.stopTimers();
    if (!wasRegistered) return;
    await this.opts.store.unregisterBroker(this.nodeId, this.brokerEpoch).catch(() => {});
    await this.session.revoke().catch(() => {});
  }

  /** Stops heart-beating without telling the store: the session runs out by itself (a crash, for tests). */
  abandon(): void {
    if (this._state === 'stopped') return;
    this._state = 'stopped';
    this.stopTimers();
  }
}
