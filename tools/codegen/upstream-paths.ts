/** Where the upstream schema of each message is: the pinned Kafka release's jar, or the shared snapshot. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, KAFKA_VERSION } from '../kafka/kafka.js';
import { UPSTREAM_DIR } from './paths.js';

const SNAPSHOT_SUBDIRS = ['internal/group-coordinator', 'internal/transaction-coordinator', 'internal/share-coordinator'];

/**
 * The wire schemas of the Kafka release Samsa follows (tools/kafka/pom.xml, 4.4.0): the
 * `common/message/*.json` files of its kafka-clients jar, extracted once into the Kafka cache
 * beside the jars (tools/ensure-kafka.sh resolves them). Null when the jar is not there.
 */
export function kafkaSchemasDir(): string | null {
  const base = join(cacheRoot(), `kafka-${KAFKA_VERSION}`);
  const dir = join(base, 'schemas', 'common', 'message');
  if (existsSync(join(dir, 'ProduceRequest.json'))) return dir;
  const jar = join(base, 'libs', `kafka-clients-${KAFKA_VERSION}.jar`);
  if (!existsSync(jar)) return null;
  const py = 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nz.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("common/message/") and n.endswith(".json")])';
  const r = spawnSync('python3', ['-c', py, jar, join(base, 'schemas')], { stdio: 'inherit' });
  if (r.status !== 0 || !existsSync(dir) || readdirSync(dir).length === 0) return null;
  return dir;
}

/**
 * Where the upstream schema of a message lives, or undefined: wire messages, headers and the
 * consumer protocol from the pinned release's jar; the internal records (`__consumer_offsets`,
 * `__transaction_state`, `__share_group_state`) from the shared snapshot, whose representation
 * of record keys (the key version is the record type) protocol-specs/ keeps.
 */
export function upstreamPathFor(name: string): string | undefined {
  for (const sub of SNAPSHOT_SUBDIRS) {
    const p = join(UPSTREAM_DIR, sub, `${name}.json`);
    if (existsSync(p)) return p;
  }
  const dir = kafkaSchemasDir();
  if (dir !== null && existsSync(join(dir, `${name}.json`))) return join(dir, `${name}.json`);
  return undefined;
}
