/**
 * Real Apache Kafka on demand: the oracle Samsa is compared against.
 *
 *   npm run kafka [-- --port 9092] [--dir DIR] [--override key=value ...]
 *   npx tsx tools/kafka/kafka.ts classpath     # resolve the jars, print the classpath
 *
 * - `kafkaJars()` resolves the release pinned in tools/kafka/pom.xml (broker, tools, Java client)
 *   with `mvn dependency:copy-dependencies` into a cache outside the repository
 *   (`$SAMSA_KAFKA_CACHE`, else `$XDG_CACHE_HOME/samsa` or `~/.cache/samsa`), once per release.
 * - `startKafka()` runs it as a single-node KRaft broker: combined broker and controller roles,
 *   storage formatted on a fresh directory, PLAINTEXT on 127.0.0.1 at a free port (or the one
 *   given), auto-create on, `group.initial.rebalance.delay.ms=0`, internal topics with replication
 *   factor 1, a short broker session (quick restarts). It resolves once the broker answers Metadata listing itself; `stop()` ends it with
 *   SIGTERM (SIGKILL after a grace period), `restart()` SIGKILLs it and starts it again on the same
 *   ports and data.
 * - `javaMissing()` says in one line why Kafka cannot run here (no java, no mvn), or null.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaConn } from '../../bench/lib/kafka-conn.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const KAFKA_POM = path.join(HERE, 'pom.xml');
export const LOG4J_CONFIG = path.join(HERE, 'log4j2.properties');

/** The Kafka release pinned in pom.xml. */
export const KAFKA_VERSION = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(KAFKA_POM, 'utf8'))![1];

export function cacheRoot(): string {
  if (process.env.SAMSA_KAFKA_CACHE) return process.env.SAMSA_KAFKA_CACHE;
  const base = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return path.join(base, 'samsa');
}

const onPath = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

export function javaBin(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

/** Why real Kafka cannot run on this machine (one line), or null when java and the jars (or mvn) are there. */
export function javaMissing(): string | null {
  const java = javaBin();
  if (!(java === 'java' ? onPath('java') : existsSync(java))) return 'no java on PATH (Kafka needs Java 17+)';
  if (!existsSync(classpathFile()) && !onPath('mvn')) return `no mvn on PATH to resolve Apache Kafka ${KAFKA_VERSION} from Maven Central`;
  return null;
}

function classpathFile(): string {
  return path.join(cacheRoot(), `kafka-${KAFKA_VERSION}`, 'classpath.txt');
}

/** The jars of the pinned release (resolved once, then read from the cache). */
export function kafkaJars(log: (l: string) => void = (l) => process.stderr.write(l + '\n')): { version: string; classpath: string; libs: string } {
  const cpFile = classpathFile();
  const libs = path.join(path.dirname(cpFile), 'libs');
  if (!existsSync(cpFile)) {
    log(`kafka: resolving Apache Kafka ${KAFKA_VERSION} (broker, tools, Java client) with Maven into ${libs}`);
    mkdirSync(libs, { recursive: true });
    const r = spawnSync('mvn', ['-B', '-q', '-f', KAFKA_POM, 'dependency:copy-dependencies', `-DoutputDirectory=${libs}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
    if (r.status !== 0) throw new Error(`mvn could not resolve Apache Kafka ${KAFKA_VERSION}: ${(r.stdout + r.stderr).trim().split('\n').slice(-15).join('\n')}`);
    writeFileSync(cpFile, path.join(libs, '*') + '\n');
  }
  return { version: KAFKA_VERSION, classpath: readFileSync(cpFile, 'utf8').trim(), libs };
}

/**
 * The release's storage test fixtures (`org.apache.kafka:kafka-storage:<version>:test-fixtures`),
 * which hold LocalTieredStorage, the RemoteStorageManager Kafka's own tiered-storage tests use:
 * resolved once beside the release's jars. Returns the jar's path.
 */
export function kafkaTestFixturesJar(log: (l: string) => void = (l) => process.stderr.write(l + '\n')): string {
  const dir = path.join(path.dirname(classpathFile()), 'fixtures');
  const jar = path.join(dir, `kafka-storage-${KAFKA_VERSION}-test-fixtures.jar`);
  if (!existsSync(jar)) {
    log(`kafka: resolving kafka-storage ${KAFKA_VERSION} test-fixtures (LocalTieredStorage) with Maven into ${dir}`);
    mkdirSync(dir, { recursive: true });
    const r = spawnSync('mvn', ['-B', '-q', 'dependency:copy', `-Dartifact=org.apache.kafka:kafka-storage:${KAFKA_VERSION}:jar:test-fixtures`, `-DoutputDirectory=${dir}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
    if (r.status !== 0 || !existsSync(jar)) throw new Error(`mvn could not resolve kafka-storage ${KAFKA_VERSION} test-fixtures: ${(r.stdout + r.stderr).trim().split('\n').slice(-15).join('\n')}`);
  }
  return jar;
}

const BASE_JVM_OPTS = ['-Xms128m', '-Xmx768m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true', `-Dlog4j2.configurationFile=${LOG4J_CONFIG}`];
/** The JVM's own class-data-sharing messages (an archive that does not fit is skipped in silence, never printed on a tool's stdout). */
const QUIET_CDS = ['-Xlog:cds*=off', '-Xlog:class+path*=off'];

/**
 * A class-data-sharing archive of the classes Kafka's tools load (the client, network and tool
 * classes), made once per Java runtime by `npm run kafka -- cds` (tools/ensure-kafka.sh). A JVM
 * started with it and the Kafka classpath maps those classes instead of loading and verifying
 * them: a console consumer run takes about 0.85 CPU-s instead of 1.3 on this machine. A JVM with
 * another classpath or runtime ignores it.
 */
export function cdsArchive(): string {
  let tag = 'java';
  try {
    const onPathDir = (process.env.PATH ?? '').split(':').find((d) => d && existsSync(path.join(d, 'java')));
    const java = realpathSync(process.env.JAVA_HOME ? javaBin() : path.join(onPathDir ?? '', 'java'));
    const st = statSync(java);
    tag = createHash('sha1').update(`${java} ${st.size} ${st.mtimeMs}`).digest('hex').slice(0, 12);
  } catch {
    /* no java: no archive */
  }
  return path.join(path.dirname(classpathFile()), `tools-${tag}.jsa`);
}

/** Makes the archive when it is missing (a console consumer that finds no broker, dumped at its exit). */
export function ensureCdsArchive(): string | null {
  const archive = cdsArchive();
  if (existsSync(archive)) return archive;
  const tmp = `${archive}.${process.pid}.tmp`;
  spawnSync(javaBin(), [`-XX:ArchiveClassesAtExit=${tmp}`, ...QUIET_CDS, ...BASE_JVM_OPTS, '-cp', kafkaJars().classpath, 'org.apache.kafka.tools.consumer.ConsoleConsumer',
    '--bootstrap-server', '127.0.0.1:9', '--topic', 'cds-warm-up', '--timeout-ms', '1500'], { stdio: 'ignore', timeout: 120_000 });
  if (!existsSync(tmp)) return null;
  renameSync(tmp, archive);
  return archive;
}

let archiveAtStart: string | null = null;
try {
  const a = cdsArchive();
  if (existsSync(a)) archiveAtStart = a;
} catch {
  /* no cache yet */
}

/** JVM options for short-lived test brokers and tools on a small machine: quick start, little memory (and the class archive, once made). */
export const JVM_OPTS = [...BASE_JVM_OPTS, ...(archiveAtStart ? [`-XX:SharedArchiveFile=${archiveAtStart}`, ...QUIET_CDS] : [])];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface KafkaOptions {
  /** PLAINTEXT port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Data directory (default: a fresh temporary one, removed by stop()). */
  dir?: string;
  /** Broker settings, Kafka's names; they win over the defaults. */
  overrides?: Record<string, string>;
  /** Called with each line the broker writes (default: kept, shown when start-up fails). */
  onLine?: (line: string) => void;
  startTimeoutMs?: number;
  /** JVM options of the broker process (default JVM_OPTS: small and quick to start, for tests). */
  jvmOpts?: string[];
  /** Jars put after the release's own on the broker's classpath (e.g. kafkaTestFixturesJar()). */
  classpath?: string[];
  /** More listeners on free ports, name → security protocol (e.g. { SASL_PLAINTEXT: 'SASL_PLAINTEXT' }); their ssl/sasl settings go in `overrides`. */
  extraListeners?: Record<string, string>;
}

export interface RunningKafka {
  version: string;
  port: number;
  bootstrap: string;
  dir: string;
  /** The port of each listener of `extraListeners`. */
  listenerPorts: Record<string, number>;
  pid(): number | undefined;
  /** SIGKILL, then start again on the same ports and data directory. */
  restart(): Promise<void>;
  /** SIGTERM (SIGKILL after `graceMs`); removes a temporary data directory. */
  stop(graceMs?: number): Promise<void>;
}

function properties(port: number, controllerPort: number, dir: string, overrides: Record<string, string>, extra: Record<string, { protocol: string; port: number }> = {}): string {
  const more = Object.entries(extra);
  const settings: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: [`PLAINTEXT://127.0.0.1:${port}`, `CONTROLLER://127.0.0.1:${controllerPort}`, ...more.map(([n, l]) => `${n}://127.0.0.1:${l.port}`)].join(','),
    'advertised.listeners': [`PLAINTEXT://127.0.0.1:${port}`, ...more.map(([n, l]) => `${n}://127.0.0.1:${l.port}`)].join(','),
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': ['PLAINTEXT:PLAINTEXT', 'CONTROLLER:PLAINTEXT', ...more.map(([n, l]) => `${n}:${l.protocol}`)].join(','),
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': dir,
    'auto.create.topics.enable': 'true',
    'num.partitions': '1',
    'group.initial.rebalance.delay.ms': '0',
    'offsets.topic.replication.factor': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    // A broker restarted after SIGKILL waits for its old registration's session to expire
    // (9 s by default) before it is unfenced; test brokers restart in ~3 s with these.
    'broker.heartbeat.interval.ms': '500',
    'broker.session.timeout.ms': '2000',
    ...overrides,
  };
  return Object.entries(settings).map(([k, v]) => `${k}=${v}`).join('\n') + '\n';
}

/**
 * Answers Metadata (v1, all topics) listing at least one broker, and every partition of every
 * topic with a leader and no error (after a restart the broker serves its partitions only once
 * it has caught up with the metadata log), within the deadline.
 */
async function waitAnswers(port: number, deadline: number, alive: () => boolean): Promise<void> {
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('the Kafka process exited during start-up');
    try {
      const c = await KafkaConn.connect('127.0.0.1', port, 1000);
      try {
        const md = await Promise.race([
          c.request(3, 1, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }),
          new Promise<never>((_, rej) => setTimeout(() => rej(new Error('Metadata timed out')), 2000)),
        ]);
        const notReady = md.topics.filter((t) => t.errorCode !== 0 || t.partitions.some((p) => p.errorCode !== 0 || p.leaderId < 0));
        // Metadata may name this broker the leader a moment before it serves the partition;
        // ListOffsets is answered by a serving leader only.
        if (md.brokers.length > 0 && notReady.length === 0 && (await servesAll(c, md.topics))) return;
        last = md.brokers.length === 0 ? 'Metadata lists no broker yet' : `partitions without a leader in ${notReady.map((t) => t.name).join(', ')}`;
      } finally {
        c.close();
      }
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Kafka did not answer on 127.0.0.1:${port} in time (${last})`);
}

async function servesAll(c: KafkaConn, topics: { name: string | null; partitions: { partitionIndex: number }[] }[]): Promise<boolean> {
  const wanted = topics.filter((t) => t.name && t.partitions.length > 0);
  if (wanted.length === 0) return true;
  const r = await c.request(2, 1, {
    replicaId: -1, isolationLevel: 0, timeoutMs: 2000,
    topics: wanted.map((t) => ({ name: t.name!, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 })) })),
  });
  return r.topics.every((t) => t.partitions.every((p) => p.errorCode === 0));
}

export async function startKafka(opts: KafkaOptions = {}): Promise<RunningKafka> {
  const missing = javaMissing();
  if (missing) throw new Error(`cannot start Apache Kafka: ${missing}`);
  const { classpath: releaseClasspath, version } = kafkaJars();
  const classpath = [releaseClasspath, ...(opts.classpath ?? [])].join(path.delimiter);
  const port = opts.port ?? (await freePort());
  const controllerPort = await freePort();
  const tempDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'samsa-kafka-'));
  const dataDir = path.join(dir, 'data');
  const propsFile = path.join(dir, 'server.properties');
  const extra: Record<string, { protocol: string; port: number }> = {};
  for (const [name, protocol] of Object.entries(opts.extraListeners ?? {})) extra[name] = { protocol, port: await freePort() };
  writeFileSync(propsFile, properties(port, controllerPort, dataDir, opts.overrides ?? {}, extra));
  const java = javaBin();
  let output = '';
  const keep = (d: Buffer) => {
    const s = d.toString();
    output = (output + s).slice(-20_000);
    if (opts.onLine) for (const l of s.split('\n')) if (l) opts.onLine(l);
  };

  if (!existsSync(path.join(dataDir, 'meta.properties'))) {
    const clusterId = spawnSync(java, [...JVM_OPTS, '-cp', classpath, 'kafka.tools.StorageTool', 'random-uuid'], { encoding: 'utf8' }).stdout.trim();
    const f = spawnSync(java, [...JVM_OPTS, '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propsFile], { encoding: 'utf8', timeout: 120_000 });
    if (f.status !== 0) throw new Error(`kafka-storage format failed: ${(f.stdout + f.stderr).slice(-2000)}`);
  }

  let child: ChildProcess | null = null;
  const launch = async () => {
    const c = spawn(java, [...(opts.jvmOpts ?? JVM_OPTS), '-cp', classpath, 'kafka.Kafka', propsFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    try {
      await waitAnswers(port, Date.now() + (opts.startTimeoutMs ?? 90_000), () => c.exitCode === null && c.signalCode === null);
    } catch (e) {
      c.kill('SIGKILL');
      throw new Error(`${(e as Error).message}\n${output.slice(-4000)}`);
    }
  };
  const kill = async (signal: NodeJS.Signals, graceMs: number) => {
    const c = child as ChildProcess | null;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => c.kill('SIGKILL'), graceMs);
      c.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      c.kill(signal);
    });
  };
  await launch();
  return {
    version,
    port,
    bootstrap: `127.0.0.1:${port}`,
    dir,
    listenerPorts: Object.fromEntries(Object.entries(extra).map(([n, l]) => [n, l.port])),
    pid: () => (child as ChildProcess | null)?.pid,
    async restart() {
      await kill('SIGKILL', 0);
      await launch();
    },
    async stop(graceMs = 10_000) {
      await kill('SIGTERM', graceMs);
      if (tempDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'classpath') {
    console.log(kafkaJars().classpath);
    return;
  }
  if (argv[0] === 'cds') {
    console.log(ensureCdsArchive() ?? 'kafka: no class-data-sharing archive could be made (this Java runtime cannot dump one); tools start without it');
    return;
  }
  let port = 9092;
  let dir: string | undefined;
  const overrides: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--port') port = Number(argv[++i]);
    else if (argv[i] === '--dir') dir = path.resolve(argv[++i]);
    else if (argv[i] === '--override') {
      const kv = argv[++i] ?? '';
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new Error(`--override needs key=value, got ${kv}`);
      overrides[kv.slice(0, eq)] = kv.slice(eq + 1);
    } else throw new Error(`usage: npm run kafka -- [--port N] [--dir DIR] [--override key=value ...] | classpath | cds`);
  }
  const k = await startKafka({ port, dir, overrides, onLine: (l) => process.stderr.write(l + '\n') });
  console.log(`Apache Kafka ${k.version} (KRaft, single node) on ${k.bootstrap}, data in ${k.dir}; Ctrl-C stops it`);
  const stop = () => void k.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
