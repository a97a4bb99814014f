/**
 * `startBroker()`: a real Samsa broker inside the calling process, on a real socket.
 *
 *   const b = await startBroker({ port: 0, 'num.partitions': 3 });
 *   // clients use b.bootstrap ("localhost:PORT"); b.control injects faults and waits
 *   await b.stop();
 *
 * Settings take Kafka's config names, either as top-level options with a dot in their name
 * (`'auto.create.topics.enable': false`) or in `config`. Storage is a fresh temporary directory
 * (default), memory (`storage: 'memory'`, through the Fs seam), or a directory of yours
 * (`storage: { dir }`, kept). stop() answers in-flight requests, closes every socket, timer and
 * file, and removes the temporary directory. Any number of brokers can run in one process.
 */
import type { ObjectStore } from '../remote/object-store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { allHandlers } from '../broker/handlers/index.js';
import { startBrokerHttp } from '../http/server.js';
import { Broker } from '../broker/broker.js';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { createLogger, type LogLevel } from '../logger.js';
import { MemFs } from '../storage/fs.js';
import { BrokerControl } from './control.js';
import { ControlHttp } from './control-http.js';
import { createTestCa, issueServerCertificate, type TestCa } from './certificates.js';
import { scramCredentialFromPassword } from '../security/sasl/scram.js';
import type { ScramCredentialChange } from '../cluster/scram-credentials.js';

/** A Kafka setting value as given to startBroker (rendered to Kafka's text form). */
export type KafkaSettingValue = string | number | boolean | readonly string[];

export interface StartBrokerBaseOptions {
  /** Port for the PLAINTEXT listener; 0 picks a free one (default 0). */
  port?: number;
  /** Host to bind (default 127.0.0.1). */
  host?: string;
  /** Kafka-named settings, e.g. { 'auto.create.topics.enable': false }. */
  config?: Record<string, KafkaSettingValue>;
  /**
   * Where the data lives: 'tmpdir' (default: a fresh temporary directory removed on stop()),
   * 'memory' (nothing touches the disk), or { dir } (a directory of yours, kept on stop()).
   */
  storage?: 'tmpdir' | 'memory' | { dir: string };
  /** Same as storage: { dir } (kept for compatibility). */
  logDir?: string;
  /**
   * The broker's clock. Pass a ManualClock to expire sessions, transactions and retention by
   * calling advance() instead of waiting. Fetch max-wait also follows this clock.
   */
  clock?: Clock;
  /** Broker log level (default 'warn'). */
  logLevel?: LogLevel;
  /**
   * Tiered storage's object store (with `remote.log.storage.system.enable: true` in config), e.g.
   * `new MemoryObjectStore()`; default: the S3-compatible store samsa.remote.s3.* names.
   */
  remoteStore?: ObjectStore;
  /**
   * SASL on the broker's listener (SASL_PLAINTEXT, or SASL_SSL with `tls`): PLAIN users,
   * SCRAM users (credentials for both SCRAM-SHA-256 and SCRAM-SHA-512, stored as
   * AlterUserScramCredentials would), OAUTHBEARER (unsecured JWS). `mechanisms` overrides the
   * enabled list (default: those given); `reauthMs` sets connections.max.reauth.ms.
   */
  sasl?: {
    plain?: Record<string, string>;
    scram?: Record<string, string>;
    oauthbearer?: boolean;
    mechanisms?: string[];
    reauthMs?: number;
  };
  /**
   * TLS on the broker's listener (SSL, or SASL_SSL with `sasl`). `true`: a fresh CA and a
   * certificate for localhost / 127.0.0.1 (RunningBroker.tls has the CA for clients). Or your own
   * PEM `cert` and `key`, with `ca` to verify client certificates; `clientAuth` sets
   * ssl.client.auth.
   */
  tls?: true | { cert?: string; key?: string; ca?: string; clientAuth?: 'none' | 'requested' | 'required' };
  /**
   * The HTTP listener (metrics, health, console) on 127.0.0.1 and a free port; `httpUrl` has its
   * address. Off by default here (the broker's own default is http://127.0.0.1:9644); setting
   * samsa.http.listeners yourself also works.
   */
  http?: boolean;
  /** With `http`: also serve `control` over HTTP at `${httpUrl}/control` (as `samsa start --control` does). */
  httpControl?: boolean;
}

/** Options: the base ones plus any Kafka setting by name (names with a dot, e.g. 'num.partitions'). */
export type StartBrokerOptions = StartBrokerBaseOptions & { [kafkaSetting: `${string}.${string}`]: KafkaSettingValue | undefined };

export interface RunningBroker {
  /** "localhost:PORT", for the clients' bootstrap servers. */
  bootstrap: string;
  port: number;
  /** The data directory ('memory:' + a virtual path for in-memory storage). */
  logDir: string;
  /** Fault injection, recording and waits (see control.ts). */
  control: BrokerControl;
  /** The broker itself (metadata, logs, dispatcher) for white-box tests. */
  broker: Broker;
  /** The HTTP listener's base URL (http://127.0.0.1:PORT), null when it is off. */
  httpUrl: string | null;
  /** The security protocol of the bootstrap listener. */
  securityProtocol: 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
  /** With `tls`: the CA clients should trust (PEM and a file), and the generated CA for issuing client certificates. */
  tls?: { ca: string; caFile: string; testCa?: TestCa };
  stop(): Promise<void>;
}

const MEMORY_DIR = '/samsa-memory';

function render(v: KafkaSettingValue): string {
  return Array.isArray(v) ? v.join(',') : String(v);
}

export async function startBroker(opts: StartBrokerOptions = {}): Promise<RunningBroker> {
  const host = opts.host ?? '127.0.0.1';
  const storage = opts.storage ?? (opts.logDir !== undefined ? { dir: opts.logDir } : 'tmpdir');
  const memory = storage === 'memory';
  const tempDir = storage === 'tmpdir' ? mkdtempSync(join(tmpdir(), 'samsa-')) : null;
  const logDir = memory ? MEMORY_DIR : tempDir ?? (storage as { dir: string }).dir;

  const securityProtocol = opts.sasl ? (opts.tls ? 'SASL_SSL' : 'SASL_PLAINTEXT') : opts.tls ? 'SSL' : 'PLAINTEXT';
  const settings: Record<string, string> = {
    listeners: `${securityProtocol}://${host}:${opts.port ?? 0}`,
    'log.dirs': logDir,
    'samsa.http.listeners': opts.http || opts.httpControl ? 'http://127.0.0.1:0' : '',
  };
  let tlsInfo: RunningBroker['tls'];
  let tempTlsDir: string | null = null;
  if (opts.tls) {
    Object.assign(settings, tlsSettings(opts.tls, (dir) => { tempTlsDir = dir; }, (t) => { tlsInfo = t; }));
  }
  if (opts.sasl) Object.assign(settings, saslSettings(opts.sasl, securityProtocol.toLowerCase()));
  for (const [k, v] of Object.entries(opts)) if (k.includes('.') && v !== undefined) settings[k] = render(v as KafkaSettingValue);
  for (const [k, v] of Object.entries(opts.config ?? {})) settings[k] = render(v);
  if (memory && settings['log.dirs'] !== MEMORY_DIR) settings['log.dirs'] = MEMORY_DIR;

  let broker: Broker;
  try {
    const argv: string[] = [];
    for (const [k, v] of Object.entries(settings)) argv.push('--override', `${k}=${v}`);
    const config = loadConfig({ argv, env: {}, cwd: process.cwd() });
    const clock = opts.clock ?? systemClock;
    broker = await Broker.start({
      config,
      handlers: allHandlers,
      http: startBrokerHttp,
      clock: opts.clock,
      logger: createLogger(opts.logLevel ?? 'warn'),
      remoteStore: opts.remoteStore,
      ...(memory ? { fs: new MemFs({ now: () => clock.now() }) } : {}),
    });
    if (opts.sasl?.scram) await storeScramUsers(broker, opts.sasl.scram);
  } catch (err) {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    if (tempTlsDir) rmSync(tempTlsDir, { recursive: true, force: true });
    throw err;
  }
  const control = new BrokerControl(broker);
  if (opts.httpControl) broker.testControl = new ControlHttp(control);
  const port = broker.listeners[0]!.boundPort;
  let stopping: Promise<void> | null = null;
  return {
    bootstrap: `localhost:${port}`,
    port,
    logDir: memory ? `memory:${MEMORY_DIR}` : logDir,
    control,
    broker,
    httpUrl: broker.http?.urls[0] ?? null,
    securityProtocol,
    ...(tlsInfo ? { tls: tlsInfo } : {}),
    stop() {
      stopping ??= (async () => {
        control.close();
        try {
          await broker.stop();
        } finally {
          control.detach();
          if (tempDir) rmSync(tempDir, { recursive: true, force: true });
          if (tempTlsDir) rmSync(tempTlsDir, { recursive: true, force: true });
        }
      })();
      return stopping;
    },
  };
}

function jaasQuote(v: string): string {
  return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function saslSettings(sasl: NonNullable<StartBrokerBaseOptions['sasl']>, listener: string): Record<string, string> {
  const mechanisms = sasl.mechanisms ?? [
    ...(sasl.plain ? ['PLAIN'] : []),
    ...(sasl.scram ? ['SCRAM-SHA-256', 'SCRAM-SHA-512'] : []),
    ...(sasl.oauthbearer ? ['OAUTHBEARER'] : []),
  ];
  const out: Record<string, string> = { 'sasl.enabled.mechanisms': mechanisms.join(',') };
  if (sasl.plain) {
    const users = Object.entries(sasl.plain).map(([u, p]) => `user_${u}=${jaasQuote(p)}`).join(' ');
    out[`listener.name.${listener}.plain.sasl.jaas.config`] = `org.apache.kafka.common.security.plain.PlainLoginModule required ${users};`;
  }
  if (sasl.oauthbearer) {
    out[`listener.name.${listener}.oauthbearer.sasl.jaas.config`] = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;';
  }
  if (sasl.reauthMs !== undefined) out['connections.max.reauth.ms'] = String(sasl.reauthMs);
  return out;
}

function tlsSettings(
  tls: NonNullable<StartBrokerBaseOptions['tls']>, onDir: (dir: string) => void, onInfo: (t: NonNullable<RunningBroker['tls']>) => void,
): Record<string, string> {
  const out: Record<string, string> = { 'ssl.keystore.type': 'PEM', 'ssl.truststore.type': 'PEM' };
  const given = tls === true ? {} : tls;
  if (given.cert && given.key) {
    out['ssl.keystore.certificate.chain'] = given.cert;
    out['ssl.keystore.key'] = given.key;
    if (given.ca) {
      out['ssl.truststore.certificates'] = given.ca;
      onInfo({ ca: given.ca, caFile: '' });
    }
  } else {
    const ca = createTestCa();
    onDir(ca.dir);
    const server = issueServerCertificate(ca);
    out['ssl.keystore.location'] = server.pemFile;
    out['ssl.truststore.certificates'] = given.ca ?? ca.cert;
    onInfo({ ca: ca.cert, caFile: ca.certFile, testCa: ca });
  }
  if (given.clientAuth) out['ssl.client.auth'] = given.clientAuth;
  return out;
}

async function storeScramUsers(broker: Broker, users: Record<string, string>): Promise<void> {
  const changes: ScramCredentialChange[] = [];
  for (const [user, password] of Object.entries(users)) {
    for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      changes.push({ kind: 'upsert', credential: scramCredentialFromPassword(user, mechanism, password) });
    }
  }
  await broker.cluster.store.alterScramCredentials(changes);
}
