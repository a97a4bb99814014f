/**
 * TLS and SASL cost, in one run against one broker process with four listeners (PLAINTEXT, SSL,
 * SASL_PLAINTEXT with SCRAM, SASL_SSL with SCRAM):
 *
 *   1. produce throughput (pipelined Produce v9 of pre-built 64 x 1 KiB batches, acks=1) and
 *      consume throughput (Fetch v12 of everything produced) over PLAINTEXT, SSL and SASL_SSL,
 *      with the broker's CPU seconds per GiB, and the ratios to PLAINTEXT;
 *   2. SCRAM-SHA-256 and SCRAM-SHA-512 authentications per second (connect, SaslHandshake, the
 *      two SaslAuthenticate round trips, close) from several concurrent clients, over
 *      SASL_PLAINTEXT. The client caches its salted password (as a long-lived client could), so
 *      the figure is the broker's side of the exchange plus connection set-up.
 *
 *   npx tsx bench/tls.ts [--duration S (5)] [--connections N (4)] [--inflight N (8)]
 *                        [--partitions N (8)] [--auth-clients N (8)] [--auth-seconds S (5)] [--reps N (3)]
 *
 * A short warm-up (produce and SCRAM logins) runs first; then --reps rounds, each producing and
 * consuming over every protocol in turn (fresh topics); the medians are printed.
 *
 * The broker runs as a child process (`node --import tsx src/cli/samsa.ts start`), so client and
 * broker do not share an event loop. Prints figures and ratios; asserts nothing. Other sessions
 * share this machine's cores: compare figures from the same run only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { apiCodecs, type ApiTypes } from '../src/protocol/generated/api-table.js';
import { readResponseHeader, responseHeaderFlexible, writeRequestHeader } from '../src/protocol/headers.js';
import { FrameDecoder } from '../src/protocol/framing.js';
import { Reader } from '../src/protocol/reader.js';
import { Writer } from '../src/protocol/writer.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { createTestCa, issueServerCertificate } from '../src/testing/certificates.js';
import { saltPassword, SCRAM_MECHANISMS } from '../src/security/sasl/scram.js';
import { freePort, procCpuSeconds, REPO_ROOT, sleep } from './lib/proc.js';

type Key = keyof ApiTypes;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
const o = {
  duration: arg('duration', 5), connections: arg('connections', 4), inflight: arg('inflight', 8), partitions: arg('partitions', 8),
  authClients: arg('auth-clients', 8), authSeconds: arg('auth-seconds', 5), reps: arg('reps', 3), batch: 64, recordSize: 1024,
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function encode<K extends Key>(apiKey: K, version: number, body: ApiTypes[K]['request']): Buffer {
  const codec = apiCodecs[apiKey];
  const w = new Writer(256);
  w.int32(0);
  writeRequestHeader(w, { apiKey: Number(apiKey), apiVersion: version, correlationId: 0, clientId: 'samsa-bench-tls' }, codec.flexibleFrom >= 0 && version >= codec.flexibleFrom);
  codec.writeRequest(w, version, body as never);
  const frame = w.toBuffer();
  frame.writeInt32BE(frame.length - 4, 0);
  return frame;
}

function decode<K extends Key>(apiKey: K, version: number, payload: Buffer): ApiTypes[K]['response'] {
  const codec = apiCodecs[apiKey];
  const r = new Reader(payload);
  readResponseHeader(r, responseHeaderFlexible(Number(apiKey), codec.flexibleFrom >= 0 && version >= codec.flexibleFrom));
  return codec.readResponse(r, version) as ApiTypes[K]['response'];
}

/** A pipelined connection (plain or TLS): responses resolve in request order. */
class Conn {
  private readonly decoder = new FrameDecoder(1 << 30, 4);
  private readonly pending: { resolve: (b: Buffer) => void; reject: (e: Error) => void }[] = [];
  private cid = 1;
  private err: Error | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      for (const f of this.decoder.push(d)) this.pending.shift()?.resolve(f);
    });
    const fail = (e: Error) => {
      this.err ??= e;
      for (const p of this.pending.splice(0)) p.reject(e);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(port: number, ca: string | null): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const s = ca ? tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }) : net.connect({ host: '127.0.0.1', port });
      s.once(ca ? 'secureConnect' : 'connect', () => resolve(new Conn(s)));
      s.once('error', reject);
    });
  }

  send(frame: Buffer): Promise<Buffer> {
    if (this.err) return Promise.reject(this.err);
    frame.writeInt32BE(this.cid++ & 0x7fffffff, 8);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.socket.write(frame);
    });
  }

  async request<K extends Key>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    return decode(apiKey, version, await this.send(encode(apiKey, version, body)));
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A SCRAM login with a cached salted password (the client's PBKDF2 is not what is measured). */
async function scramLogin(c: Conn, mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', user: string, salted: Map<string, Buffer>, password: string): Promise<void> {
  const { hash } = SCRAM_MECHANISMS[mechanism];
  const hs = await c.request(17, 1, { mechanism });
  if (hs.errorCode !== 0) throw new Error(`SaslHandshake error ${hs.errorCode}`);
  const nonce = randomBytes(18).toString('base64');
  const bare = `n=${user},r=${nonce}`;
  const first = await c.request(36, 2, { authBytes: Buffer.from(`n,,${bare}`) });
  if (first.errorCode !== 0) throw new Error(`SaslAuthenticate: ${first.errorMessage}`);
  const serverFirst = first.authBytes.toString();
  const m = /^r=([^,]+),s=([^,]+),i=(\d+)/.exec(serverFirst)!;
  const key = `${mechanism}/${m[2]}`;
  let sp = salted.get(key);
  if (!sp) salted.set(key, (sp = saltPassword(mechanism, password, Buffer.from(m[2]!, 'base64'), Number(m[3]))));
  const clientKey = createHmac(hash, sp).update('Client Key').digest();
  const storedKey = createHash(hash).update(clientKey).digest();
  const withoutProof = `c=biws,r=${m[1]}`;
  const sig = createHmac(hash, storedKey).update(`${bare},${serverFirst},${withoutProof}`).digest();
  for (let i = 0; i < sig.length; i++) sig[i] ^= clientKey[i]!;
  const fin = await c.request(36, 2, { authBytes: Buffer.from(`${withoutProof},p=${sig.toString('base64')}`) });
  if (fin.errorCode !== 0) throw new Error(`SaslAuthenticate: ${fin.errorMessage}`);
}

interface Listener { name: string; port: number; tls: boolean; sasl: boolean }

async function startBrokerProcess(listeners: Listener[], caDir: string, serverPem: string, dataDir: string): Promise<ChildProcess> {
  const overrides: Record<string, string> = {
    'log.dirs': dataDir,
    listeners: listeners.map((l) => `${l.name}://127.0.0.1:${l.port}`).join(','),
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    'ssl.keystore.type': 'PEM', 'ssl.keystore.location': serverPem,
    'sasl.enabled.mechanisms': 'SCRAM-SHA-256,SCRAM-SHA-512',
    'connection.failed.authentication.delay.ms': '0',
    'num.partitions': String(o.partitions),
  };
  void caDir;
  const args = ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'samsa.ts'), 'start'];
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => { err = (err + d).slice(-2000); });
  const plain = listeners.find((l) => l.name === 'PLAINTEXT')!.port;
  for (let i = 0; i < 300; i++) {
    try {
      const c = await Conn.open(plain, null);
      await c.request(18, 3, { clientSoftwareName: 'bench', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
      c.close();
      return child;
    } catch {
      if (child.exitCode !== null) throw new Error(`broker exited: ${err}`);
      await sleep(100);
    }
  }
  throw new Error(`broker did not start: ${err}`);
}

async function produce(l: Listener, ca: string, topic: string, login: (c: Conn) => Promise<void>): Promise<{ msgs: number; secs: number; hw: number[] }> {
  const records = Array.from({ length: o.batch }, () => ({ key: null, value: randomBytes(o.recordSize) }));
  const batch = buildRecordBatch({ records });
  const conns = await Promise.all(Array.from({ length: o.connections }, async () => {
    const c = await Conn.open(l.port, l.tls ? ca : null);
    if (l.sasl) await login(c);
    return c;
  }));
  const hw = new Array<number>(o.partitions).fill(0);
  let next = 0;
  const end = performance.now() + o.duration * 1000;
  const t0 = performance.now();
  const slot = async (c: Conn) => {
    while (performance.now() < end) {
      const p = next++ % o.partitions;
      const frame = encode(0, 9, { transactionalId: null, acks: 1, timeoutMs: 30000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: p, records: batch }] }] });
      const res = decode(0, 9, await c.send(frame));
      const pr = res.responses[0]!.partitionResponses[0]!;
      if (pr.errorCode !== 0) throw new Error(`produce error ${pr.errorCode}`);
      hw[p] = Math.max(hw[p]!, Number(pr.baseOffset) + o.batch);
    }
  };
  await Promise.all(conns.flatMap((c) => Array.from({ length: o.inflight }, () => slot(c))));
  const secs = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  return { msgs: hw.reduce((a, b) => a + b, 0), secs, hw };
}

async function consume(l: Listener, ca: string, topic: string, hw: number[], login: (c: Conn) => Promise<void>): Promise<{ msgs: number; secs: number }> {
  const nConn = 2;
  const t0 = performance.now();
  let msgs = 0;
  await Promise.all(Array.from({ length: nConn }, async (_, w) => {
    const c = await Conn.open(l.port, l.tls ? ca : null);
    if (l.sasl) await login(c);
    const parts = hw.map((_, p) => p).filter((p) => p % nConn === w);
    const offsets = new Map(parts.map((p) => [p, 0]));
    for (;;) {
      const want = parts.filter((p) => offsets.get(p)! < hw[p]!);
      if (want.length === 0) break;
      const res = await c.request(1, 12, {
        clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 100, minBytes: 1, maxBytes: 50 * MiB, isolationLevel: 0,
        sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
        topics: [{ topic, topicId: ZERO_UUID, partitions: want.map((p) => ({
          partition: p, currentLeaderEpoch: -1, fetchOffset: BigInt(offsets.get(p)!), lastFetchedEpoch: -1, logStartOffset: -1n,
          partitionMaxBytes: MiB, replicaDirectoryId: ZERO_UUID, highWatermark: 0x7fffffffffffffffn,
        })) }],
      });
      for (const pd of res.responses[0]!.partitions) {
        const chunks = Array.isArray(pd.records) ? pd.records : pd.records ? [pd.records] : [];
        const buf = Buffer.concat(chunks as Buffer[]);
        let pos = 0;
        let at = offsets.get(pd.partitionIndex)!;
        while (pos + 61 <= buf.length) {
          const size = 12 + buf.readInt32BE(pos + 8);
          if (pos + size > buf.length) break;
          const base = Number(buf.readBigInt64BE(pos));
          const last = base + buf.readInt32BE(pos + 23);
          if (last >= at) {
            msgs += last - Math.max(base, at) + 1;
            at = last + 1;
          }
          pos += size;
        }
        offsets.set(pd.partitionIndex, at);
      }
    }
    c.close();
  }));
  return { msgs, secs: (performance.now() - t0) / 1000 };
}

async function authRate(port: number, mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', seconds = o.authSeconds): Promise<{ ok: number; secs: number }> {
  const salted = new Map<string, Buffer>();
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  let ok = 0;
  await Promise.all(Array.from({ length: o.authClients }, async () => {
    while (performance.now() < end) {
      const c = await Conn.open(port, null);
      await scramLogin(c, mechanism, 'bench', salted, 'bench-secret');
      c.close();
      ok++;
    }
  }));
  return { ok, secs: (performance.now() - t0) / 1000 };
}

async function main(): Promise<void> {
  const ca = createTestCa();
  const server = issueServerCertificate(ca, 'bench');
  const dataDir = mkdtempSync(join(tmpdir(), 'samsa-bench-tls-'));
  const listeners: Listener[] = [
    { name: 'PLAINTEXT', port: await freePort(), tls: false, sasl: false },
    { name: 'SSL', port: await freePort(), tls: true, sasl: false },
    { name: 'SASL_PLAINTEXT', port: await freePort(), tls: false, sasl: true },
    { name: 'SASL_SSL', port: await freePort(), tls: true, sasl: true },
  ];
  const broker = await startBrokerProcess(listeners, ca.dir, server.pemFile, dataDir);
  try {
    const admin = await Conn.open(listeners[0]!.port, null);
    for (const mechanism of [1, 2]) {
      const name = mechanism === 1 ? 'SCRAM-SHA-256' : 'SCRAM-SHA-512';
      const salt = randomBytes(16);
      const r = await admin.request(51, 0, { deletions: [], upsertions: [{ name: 'bench', mechanism, iterations: 4096, salt, saltedPassword: saltPassword(name, 'bench-secret', salt, 4096) }] });
      if (r.results[0]!.errorCode !== 0) throw new Error(`AlterUserScramCredentials: ${r.results[0]!.errorMessage}`);
    }
    const created = await admin.request(19, 7, {
      topics: ['warmup', ...Array.from({ length: o.reps }, (_, r) => ['plaintext', 'ssl', 'sasl_ssl'].map((n) => `${n}-${r}`)).flat()].map((n) => ({ name: `bench-${n}`, numPartitions: o.partitions, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 30000, validateOnly: false,
    });
    for (const t of created.topics) if (t.errorCode !== 0) throw new Error(`CreateTopics ${t.name}: ${t.errorCode}`);
    admin.close();
    const salted = new Map<string, Buffer>();
    const login = (c: Conn) => scramLogin(c, 'SCRAM-SHA-256', 'bench', salted, 'bench-secret');
    console.log(`tls bench: ${o.connections} connections x ${o.inflight} in flight, ${o.batch} x ${o.recordSize} B batches, ${o.partitions} partitions, ${o.duration} s per produce phase, ${o.reps} rounds (medians [min-max])`);
    // Warm-up: JIT and buffer pools on both sides.
    const warm = o.duration;
    o.duration = 1;
    await produce(listeners[0]!, ca.cert, 'bench-warmup', login);
    o.duration = warm;
    await authRate(listeners.find((x) => x.name === 'SASL_PLAINTEXT')!.port, 'SCRAM-SHA-256', 1);
    const samples = new Map<string, { pMiB: number[]; cMiB: number[]; pCpu: number[]; cCpu: number[]; msgs: number[] }>();
    for (let rep = 0; rep < o.reps; rep++) {
      for (const name of ['PLAINTEXT', 'SSL', 'SASL_SSL']) {
        const l = listeners.find((x) => x.name === name)!;
        const topic = `bench-${name.toLowerCase()}-${rep}`;
        let cpu0 = procCpuSeconds(broker.pid!);
        const p = await produce(l, ca.cert, topic, login);
        const pCpuS = procCpuSeconds(broker.pid!) - cpu0;
        cpu0 = procCpuSeconds(broker.pid!);
        const c = await consume(l, ca.cert, topic, p.hw, login);
        const cCpuS = procCpuSeconds(broker.pid!) - cpu0;
        const pBytes = p.msgs * o.recordSize;
        let s = samples.get(name);
        if (!s) samples.set(name, (s = { pMiB: [], cMiB: [], pCpu: [], cCpu: [], msgs: [] }));
        s.pMiB.push(pBytes / MiB / p.secs);
        s.cMiB.push((c.msgs * o.recordSize) / MiB / c.secs);
        s.pCpu.push(pCpuS / (pBytes / GiB));
        s.cCpu.push(cCpuS / (pBytes / GiB));
        s.msgs.push(p.msgs / p.secs);
      }
    }
    const rows: { name: string; pMiB: number; cMiB: number; pCpu: number; cCpu: number }[] = [];
    for (const [name, s] of samples) {
      const row = { name, pMiB: median(s.pMiB), cMiB: median(s.cMiB), pCpu: median(s.pCpu), cCpu: median(s.cCpu) };
      rows.push(row);
      const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
      console.log(`${name.padEnd(10)} produce ${row.pMiB.toFixed(1).padStart(7)} MiB/s [${range(s.pMiB)}] (${Math.round(median(s.msgs))} msgs/s, broker ${row.pCpu.toFixed(2)} CPU s/GiB)  consume ${row.cMiB.toFixed(1).padStart(7)} MiB/s [${range(s.cMiB)}] (broker ${row.cCpu.toFixed(2)} CPU s/GiB)`);
    }
    const base = rows[0]!;
    for (const r of rows.slice(1)) {
      console.log(`ratio ${r.name}/PLAINTEXT: produce ${(r.pMiB / base.pMiB).toFixed(2)}x throughput, ${(r.pCpu / base.pCpu).toFixed(2)}x CPU per GiB; consume ${(r.cMiB / base.cMiB).toFixed(2)}x throughput, ${(r.cCpu / base.cCpu).toFixed(2)}x CPU per GiB`);
    }
    const saslPort = listeners.find((x) => x.name === 'SASL_PLAINTEXT')!.port;
    for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      const cpu0 = procCpuSeconds(broker.pid!);
      const a = await authRate(saslPort, mechanism);
      const cpu = procCpuSeconds(broker.pid!) - cpu0;
      console.log(`${mechanism} authentications: ${Math.round(a.ok / a.secs)}/s (${a.ok} in ${a.secs.toFixed(1)} s, ${o.authClients} clients; broker ${((cpu / a.ok) * 1e6).toFixed(0)} µs CPU each, connection set-up included)`);
    }
  } finally {
    broker.kill('SIGTERM');
    await new Promise((r) => broker.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(ca.dir, { recursive: true, force: true });
  }
}

await main();
