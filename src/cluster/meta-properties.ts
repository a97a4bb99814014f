/**
 * `meta.properties` in every log dir: which cluster and which node the data belongs to (Kafka's
 * MetaProperties / MetaPropertiesEnsemble). A broker writes it into each log dir once it knows
 * the cluster id, and at start-up, before it loads a single log, refuses a log dir whose file
 * names another cluster id or another node.id: pointing a broker at another cluster's data must
 * fail with a clear error, not delete or overwrite that data (the replica manager deletes logs of
 * topics the metadata does not know, and another cluster's topics have other ids).
 *
 * The file is a Java properties file as Kafka writes it (version=1, cluster.id, node.id,
 * directory.id), so Kafka's own tools can read it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export const META_PROPERTIES = 'meta.properties';

export interface MetaProperties {
  version: number;
  clusterId: string | null;
  nodeId: number | null;
  directoryId: string | null;
}

/** A log dir that belongs to another cluster or another node (Kafka's InconsistentClusterIdException). */
export class InconsistentClusterIdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InconsistentClusterIdError';
  }
}

/** Parses the subset of the Java properties format Kafka writes (key=value lines, # comments). */
export function parseMetaProperties(text: string): MetaProperties {
  const kv = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const i = line.search(/[=:]/);
    if (i < 0) continue;
    kv.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  const num = (k: string) => (kv.has(k) && /^-?\d+$/.test(kv.get(k)!) ? Number(kv.get(k)) : null);
  return {
    version: num('version') ?? 0,
    clusterId: kv.get('cluster.id') || null,
    nodeId: num('node.id') ?? num('broker.id'),
    directoryId: kv.get('directory.id') || null,
  };
}

/** The log dir's meta.properties, or null when it has none. */
export function readMetaProperties(dir: string): MetaProperties | null {
  const file = join(dir, META_PROPERTIES);
  if (!existsSync(file)) return null;
  return parseMetaProperties(readFileSync(file, 'utf8'));
}

/**
 * Checks the log dirs against each other and the configuration before anything is loaded: one
 * cluster id across them (and equal to cluster.id when that is set), the configured node.id.
 * Resolves with the stored cluster id (null when no dir has a file yet).
 */
export function verifyLogDirs(logDirs: string[], expected: { nodeId: number; clusterId: string | null }): string | null {
  let clusterId = expected.clusterId;
  let from = 'cluster.id';
  for (const dir of logDirs) {
    const meta = readMetaProperties(dir);
    if (!meta) continue;
    const file = join(dir, META_PROPERTIES);
    if (meta.clusterId !== null) {
      if (clusterId !== null && meta.clusterId !== clusterId) {
        throw new InconsistentClusterIdError(
          `Invalid cluster.id in ${file}: expected ${clusterId} (${from}), but read ${meta.clusterId}. ` +
            'The log dir belongs to another cluster; its data was left untouched. Point log.dirs at this cluster\'s data or at an empty directory.',
        );
      }
      clusterId = meta.clusterId;
      from = file;
    }
    if (meta.nodeId !== null && meta.nodeId !== expected.nodeId) {
      throw new InconsistentClusterIdError(
        `Stored node id ${meta.nodeId} in ${file} does not match node.id ${expected.nodeId}. ` +
          'If the data was moved, configure the node.id it belongs to; for a new node use an empty directory.',
      );
    }
  }
  return clusterId;
}

/**
 * Checks the cluster id the metadata store holds against the log dirs' (the store is the truth
 * for a running cluster: data of another cluster is refused, never adopted into this one).
 */
export function verifyStoredClusterId(logDirs: string[], logDirsClusterId: string | null, storeClusterId: string | null, storeDescription: string): void {
  if (logDirsClusterId === null || storeClusterId === null || logDirsClusterId === storeClusterId) return;
  const dir = logDirs.find((d) => readMetaProperties(d)?.clusterId === logDirsClusterId) ?? logDirs[0];
  throw new InconsistentClusterIdError(
    `Invalid cluster.id in ${join(dir, META_PROPERTIES)}: the cluster in ${storeDescription} has id ${storeClusterId}, but the log dir belongs to cluster ${logDirsClusterId}. ` +
      'Its data was left untouched. Point log.dirs at this cluster\'s data or at an empty directory, or samsa.etcd.endpoints / samsa.etcd.key.prefix at the cluster the data belongs to.',
  );
}

/**
 * Writes meta.properties into every log dir that has none (temporary file, then rename), each
 * with a directory.id of its own. A dir that cannot be written is left out (Kafka's error log
 * dirs: the LogManager has it offline already); returns those dirs.
 */
export function writeMetaProperties(logDirs: string[], meta: { clusterId: string; nodeId: number }): string[] {
  const failed: string[] = [];
  for (const dir of logDirs) {
    try {
      writeMetaPropertiesOf(dir, meta);
    } catch {
      failed.push(dir);
    }
  }
  return failed;
}

function writeMetaPropertiesOf(dir: string, meta: { clusterId: string; nodeId: number }): void {
  if (readMetaProperties(dir)?.clusterId) return;
  const directoryId = randomBytes(16).toString('base64url');
  const text = [
    '#',
    `#${new Date().toUTCString()}`,
    `cluster.id=${meta.clusterId}`,
    `directory.id=${directoryId}`,
    `node.id=${meta.nodeId}`,
    'version=1',
    '',
  ].join('\n');
  const tmp = join(dir, `${META_PROPERTIES}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, join(dir, META_PROPERTIES));
}
