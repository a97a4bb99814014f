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
 * MirrorMaker 2 runs on a classpath of its own (mirrorMakerJars): connect-mirror 4.4.0 is not served
 * by the registry this project reaches, so mirror-maker-pom.xml pins the newest release it serves
 * with that release's whole tree. connect-file (FileStreamSource/Sink) 4.4.0 is not served either:
 * compat-tests/frameworks/ has its own file connectors.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KAFKA_VERSION, kafkaJars } from './kafka.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const FRAMEWORKS_POM = path.join(HERE, 'frameworks-pom.xml');
export const MIRROR_MAKER_POM = path.join(HERE, 'mirror-maker-pom.xml');
/** The MirrorMaker 2 release pinned in mirror-maker-pom.xml. */
export const MIRROR_MAKER_VERSION = /<mirror\.version>([^<]+)<\/mirror\.version>/.exec(readFileSync(MIRROR_MAKER_POM, 'utf8'))![1];
const ARTIFACTS = ['kafka-streams', 'rocksdbjni'];

/** The release's classpath followed by the frameworks' jars (resolved once, then read from the cache). */
export function frameworkJars(log: (l: string) => void = (l) => process.stderr.write(l + '\n')): { version: string; classpath: string } {
  const release = kafkaJars(log);
  const dir = path.join(path.dirname(release.libs), 'frameworks');
  const have = () => existsSync(dir) && ARTIFACTS.every((a) => readdirSync(dir).some((f) => f.startsWith(`${a}-`) && f.endsWith('.jar')));
  if (!have()) copyDependencies(dir, `Kafka Streams ${KAFKA_VERSION} and RocksDB`, ['-f', FRAMEWORKS_POM, `-Dkafka.version=${KAFKA_VERSION}`, `-DincludeArtifactIds=${ARTIFACTS.join(',')}`], have, log);
  return { version: release.version, classpath: [release.classpath, path.join(dir, '*')].join(path.delimiter) };
}

/** MirrorMaker 2's own classpath: connect-mirror's whole tree of the release pinned in mirror-maker-pom.xml. */
export function mirrorMakerJars(log: (l: string) => void = (l) => process.stderr.write(l + '\n')): { version: string; classpath: string } {
  const release = kafkaJars(log);
  const dir = path.join(path.dirname(release.libs), `mirror-maker-${MIRROR_MAKER_VERSION}`);
  const have = () => existsSync(dir) && readdirSync(dir).some((f) => f.startsWith('connect-mirror-') && f.endsWith('.jar'));
  if (!have()) copyDependencies(dir, `MirrorMaker 2 (connect-mirror ${MIRROR_MAKER_VERSION})`, ['-f', MIRROR_MAKER_POM], have, log);
  return { version: MIRROR_MAKER_VERSION, classpath: path.join(dir, '*') };
}

/** `mvn dependency:copy-dependencies` into `dir`, through a temporary directory renamed at the end (another process may be resolving too). */
function copyDependencies(dir: string, what: string, args: string[], have: () => boolean, log: (l: string) => void): void {
  log(`kafka: resolving ${what} with Maven into ${dir}`);
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  try {
    const r = spawnSync('mvn', ['-B', '-q', ...args, 'dependency:copy-dependencies', `-DoutputDirectory=${tmp}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
    if (r.status !== 0) throw new Error(`mvn could not resolve ${what}: ${(r.stdout + r.stderr).trim().split('\n').slice(-15).join('\n')}`);
    try {
      renameSync(tmp, dir);
    } catch (e) {
      if (!have()) throw e;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  try {
    console.log(frameworkJars().classpath);
    console.log(mirrorMakerJars().classpath);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
