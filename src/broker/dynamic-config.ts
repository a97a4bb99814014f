/**
 * The broker's configuration with its dynamic broker configs in effect (Kafka's
 * DynamicBrokerConfig on a broker): follows the cluster-wide defaults (resource name "") and this
 * broker's own (its node id) in the metadata cache, recomputes the effective configuration on
 * every change, and reconfigures what acts on it:
 * - every hosted log takes its topic's config again (log.retention.ms, message.max.bytes and the
 *   other log.* defaults a topic without its own value inherits), and the minimum ISR;
 * - the log cleaner (log.cleaner.threads, backoff.ms, dedupe.buffer.size, io.buffer.size,
 *   io.buffer.load.factor, io.max.bytes.per.second);
 * - the controller's defaults for topics without their own unclean.leader.election.enable and
 *   min.insync.replicas (the cluster-wide value: a controller decides for the whole cluster).
 * Everything else that reads `Broker.rawConfig` when it acts (the Produce handler's
 * transaction.partition.verification.enable, CreateTopics' answer …) sees the new value at once.
 */
import { cleanerConfigFor } from './settings.js';
import { effectiveBrokerConfig } from '../config/dynamic-broker-view.js';
import { CLEANER_CONFIGS } from '../config/dynamic-broker-names.js';
import { DEFAULT_BROKER_CONFIGS } from '../cluster/metadata-store.js';
import type { BrokerConfig } from '../config.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { ControllerConfig } from '../cluster/controller.js';
import type { CleanerConfig } from '../storage/log-cleaner.js';
import type { Logger } from '../logger.js';

/** What a change of the effective configuration reconfigures (each absent until the broker has it). */
export interface DynamicConfigTargets {
  /** Hosted logs and their minimum ISR (ReplicaManager.brokerConfigChanged). */
  replicaManager?: { brokerConfigChanged(): void };
  /** The log cleaner, once running. */
  cleaner?: { reconfigure(config: Partial<CleanerConfig>): void } | null;
  /** The controller's defaults (the object its decisions read). */
  controller?: ControllerConfig;
  logger?: Logger;
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

export class DynamicBrokerConfig {
  private effective: BrokerConfig;
  private targets: () => DynamicConfigTargets = () => ({});

  constructor(readonly staticConfig: BrokerConfig, readonly nodeId: number) {
    this.effective = staticConfig;
  }

  /** The configuration in effect now. */
  get current(): BrokerConfig {
    return this.effective;
  }

  /** Reads the dynamic configs from the cache now and after every change of them. */
  follow(metadataCache: MetadataCache, targets: () => DynamicConfigTargets): void {
    this.targets = targets;
    const update = () => this.update(metadataCache.brokerConfigs.get(DEFAULT_BROKER_CONFIGS) ?? EMPTY, metadataCache.brokerConfigs.get(String(this.nodeId)) ?? EMPTY);
    update();
    metadataCache.on('change', (c) => {
      if (c.resynced || c.events.some((e) => e.kind === 'brokerConfig' && (e.key === DEFAULT_BROKER_CONFIGS || e.key === String(this.nodeId)))) update();
    });
  }

  private update(clusterDefault: Readonly<Record<string, string>>, perBroker: Readonly<Record<string, string>>): void {
    const before = this.effective;
    const next = effectiveBrokerConfig(this.staticConfig, clusterDefault, perBroker);
    const sameLayers = JSON.stringify(before.dynamic ?? null) === JSON.stringify(next.dynamic ?? null);
    if (sameLayers) return;
    this.effective = next;
    const t = this.targets();
    try {
      t.replicaManager?.brokerConfigChanged();
      const values = (c: BrokerConfig) => CLEANER_CONFIGS.map((n) => (c as unknown as Record<string, unknown>)[n]);
      if (t.cleaner && JSON.stringify(values(before)) !== JSON.stringify(values(next))) t.cleaner.reconfigure(cleanerConfigFor(next));
      if (t.controller) {
        // A controller decides for the whole cluster: the cluster-wide default over the static setting.
        const cluster = effectiveBrokerConfig(this.staticConfig, clusterDefault, EMPTY);
        t.controller.uncleanLeaderElectionEnable = Boolean(cluster['unclean.leader.election.enable']);
        t.controller.minInsyncReplicas = Number(cluster['min.insync.replicas']);
      }
    } catch (err) {
      t.logger?.error('applying dynamic broker configs failed', err);
    }
  }
}
