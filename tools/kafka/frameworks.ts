/**
 * The frameworks people run on Kafka, of the release pinned in pom.xml: Kafka Streams (with
 * RocksDB) and Kafka Connect, for compat-tests/frameworks.test.ts.
 *
 *   npx tsx tools/kafka/frameworks.ts     # resolve them (tools/ensure-kafka.sh does), print the classpath
 *
 * Connect's runtime, API, JSON converter and transforms are among the release's own jars
 * (kafkaJars()). kafka-streams and rocksdbjni are copied once from Maven Central by
 * `mvn dependency:copy-dependencies` on frameworks-pom.xml (those two artifacts only; the rest of
 * their dependencies are the release's jars) into `<cache>/kafka-<version>/frameworks`.
 * connect-file (FileStreamSource/Sink) and connect-mirror (MirrorMaker 2) are not served by the
 * registry this project reaches: compat-tests/frameworks/ has its own file connectors.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KAFKA_VERSION, kafkaJars } from './kafka.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const FRAMEWORKS_POM = path.join(HERE, 'frameworks-pom.xml');
const ARTIFACTS = ['kafka-streams', 'rocksdbjni'];

/** The release's classpath followed by the frameworks' jars (resolved once, then read from the cache). */
export function frameworkJars(log: (l: string) => void = (l) => process.stderr.write(l + '\n')): { version: string; classpath: string } {
  const release = kafkaJars(log);
  const dir = path.join(path.dirname(release.libs), 'frameworks');
  const have = () => existsSync(dir) && ARTIFACTS.every((a) => readdirSync(dir).some((f) => f.startsWith(`${a}-`) && f.endsWith('.jar')));
  if (!have()) {
    log(`kafka: resolving Kafka Streams ${KAFKA_VERSION} and RocksDB with Maven into ${dir}`);
    // Into a temporary directory renamed at the end: another process may be resolving too.
    const tmp = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    try {
      const r = spawnSync('mvn', ['-B', '-q', '-f', FRAMEWORKS_POM, 'dependency:copy-dependencies', `-Dkafka.version=${KAFKA_VERSION}`, `-DincludeArtifactIds=${ARTIFACTS.join(',')}`, `-DoutputDirectory=${tmp}`],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
      if (r.status !== 0) throw new Error(`mvn could not resolve Kafka Streams ${KAFKA_VERSION}: ${(r.stdout + r.stderr).trim().split('\n').slice(-15).join('\n')}`);
      try {
        renameSync(tmp, dir);
      } catch (e) {
        if (!have()) throw e;
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return { version: release.version, classpath: [release.classpath, path.join(dir, '*')].join(path.delimiter) };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  try {
    console.log(frameworkJars().classpath);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
