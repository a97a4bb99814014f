/**
 * A TCP proxy for fault tests: it forwards bytes between its clients and one target and can, on
 * command, take the network away.
 *
 * - `cut()`: every connection is closed at once (RST) and new ones are reset as soon as they are
 *   accepted: what a peer sees when a link goes down and the far side answers with resets.
 * - `stall()`: nothing is forwarded either way; connections stay open, new ones are accepted and
 *   held, and the bytes wait (the proxy stops reading, so TCP back-pressure holds the rest): a
 *   partition where packets are lost, as the peer sees it until its own timeouts fire.
 * - `heal()`: back to forwarding; stalled bytes flow on.
 *
 * Faults may apply to every connection or to connections of one label. `label(firstChunk)` names
 * a connection from the first bytes its client sends (e.g. the Kafka client id, see
 * `kafkaClientLabel`), so one proxy in front of a broker can cut one peer off and let the others
 * through. A connection whose label is not known yet (no bytes sent) is held until it is.
 *
 *   const p = await startFaultProxy({ targetPort: 2379 });
 *   p.cut(); ... p.heal(); await p.close();
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export type Fault = 'cut' | 'stall';

export interface FaultProxyOptions {
  targetPort: number;
  targetHost?: string;
  /** Port to listen on (default 0: a free one, bound at once; see `port`). */
  listenPort?: number;
  /** Names a connection from its client's first bytes: null for none, undefined while more bytes are needed. */
  label?: (firstBytes: Buffer) => string | null | undefined;
}

export interface FaultProxy {
  readonly port: number;
  /** `127.0.0.1:<port>` */
  readonly address: string;
  /** Close every connection (or those with `label`) and reset new ones until heal(). */
  cut(label?: string): void;
  /** Hold every connection's bytes (or those with `label`) until heal(). */
  stall(label?: string): void;
  /** Forward again (everything, or connections with `label`; a global fault is healed by heal()). */
  heal(label?: string): void;
  /** The fault in force for a label (or the global one). */
  fault(label?: string): Fault | null;
  /** Connections open now, with their labels. */
  connections(): { label: string | null; stalled: boolean }[];
  /** Connections accepted since start (including reset ones). */
  readonly accepted: number;
  /** Connections reset because of a cut. */
  readonly resets: number;
  /** Bytes forwarded to the target, and from it to the clients (benchmarks). */
  readonly bytesToTarget: number;
  readonly bytesFromTarget: number;
  close(): Promise<void>;
}

interface Conn {
  client: Socket;
  target: Socket | null;
  label: string | null;
  /** Bytes from the client before the target was connected or while the label was unknown. */
  early: Buffer[];
  labelled: boolean;
  stalled: boolean;
}

/**
 * The client id of a Kafka request frame (size, api key, version, correlation id, client id):
 * undefined while the bytes do not reach its end yet, null for a null client id.
 */
export function kafkaClientId(chunk: Buffer): string | null | undefined {
  if (chunk.length < 14) return undefined;
  const len = chunk.readInt16BE(12);
  if (len < 0) return null;
  if (chunk.length < 14 + len) return undefined;
  return chunk.subarray(14, 14 + len).toString('utf8');
}

/**
 * Labels a connection between Samsa brokers with the node id of the broker that opened it: the
 * inter-broker clients' ids are `samsa-broker-<id>-<purpose>` (replica fetchers) and
 * `<forwarding id>-by-<id>-<purpose>` (forwarded controller requests). Other clients: null.
 */
export function brokerPeerLabel(chunk: Buffer): string | null | undefined {
  const id = kafkaClientId(chunk);
  if (id === undefined || id === null) return id;
  const m = /^samsa-broker-(\d+)-/.exec(id) ?? /-by-(\d+)(?:-|$)/.exec(id);
  return m ? m[1]! : null;
}

export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  const host = opts.targetHost ?? '127.0.0.1';
  const conns = new Set<Conn>();
  const faults = new Map<string, Fault>();
  let global: Fault | null = null;
  let accepted = 0;
  let resets = 0;
  let bytesToTarget = 0;
  let bytesFromTarget = 0;

  const faultOf = (c: Conn): Fault | null => {
    if (global) return global;
    if (c.label !== null) return faults.get(c.label) ?? null;
    return null;
  };

  const destroy = (c: Conn, reset: boolean) => {
    conns.delete(c);
    if (reset) {
      resets++;
      c.client.resetAndDestroy();
      c.target?.resetAndDestroy();
    } else {
      c.client.destroy();
      c.target?.destroy();
    }
  };

  /** Applies the fault in force to one connection. */
  const apply = (c: Conn) => {
    if (!conns.has(c)) return;
    // Until its label is known a labelled connection waits (its fault depends on it).
    const f = opts.label && !c.labelled && !global ? 'stall' : faultOf(c);
    if (f === 'cut') return destroy(c, true);
    if (f === 'stall') {
      c.stalled = true;
      if (c.labelled || !opts.label) c.client.pause();
      c.target?.pause();
      return;
    }
    c.stalled = false;
    if (!c.target) {
      const t = connect(opts.targetPort, host);
      c.target = t;
      t.on('error', () => destroy(c, false));
      t.on('close', () => destroy(c, false));
      t.on('data', (d: Buffer) => {
        bytesFromTarget += d.length;
        if (!c.client.write(d)) {
          t.pause();
          c.client.once('drain', () => {
            if (!c.stalled) t.resume();
          });
        }
      });
    }
    for (const b of c.early.splice(0)) c.target.write(b);
    c.client.resume();
    c.target.resume();
  };

  const server: Server = createServer({ pauseOnConnect: false }, (client) => {
    accepted++;
    const c: Conn = { client, target: null, label: null, early: [], labelled: !opts.label, stalled: false };
    conns.add(c);
    client.on('error', () => destroy(c, false));
    client.on('close', () => destroy(c, false));
    client.on('data', (d: Buffer) => {
      bytesToTarget += d.length;
      if (!c.labelled) {
        c.early.push(d);
        const label = opts.label!(Buffer.concat(c.early));
        // More bytes needed to tell (give up naming it after 4 KiB).
        if (label === undefined && c.early.reduce((n, b) => n + b.length, 0) < 4096) return;
        c.label = label ?? null;
        c.labelled = true;
        apply(c);
        return;
      }
      if (!c.target || c.stalled) {
        c.early.push(d);
        return;
      }
      if (!c.target.write(d)) {
        client.pause();
        c.target.once('drain', () => {
          if (!c.stalled) client.resume();
        });
      }
    });
    apply(c);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.listenPort ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  const applyAll = (label?: string) => {
    for (const c of [...conns]) if (label === undefined || c.label === label) apply(c);
  };

  return {
    port,
    address: `127.0.0.1:${port}`,
    cut(label) {
      if (label === undefined) global = 'cut';
      else faults.set(label, 'cut');
      applyAll(label);
    },
    stall(label) {
      if (label === undefined) global = 'stall';
      else faults.set(label, 'stall');
      applyAll(label);
    },
    heal(label) {
      if (label === undefined) {
        global = null;
        faults.clear();
      } else {
        faults.delete(label);
      }
      applyAll();
    },
    fault(label) {
      return label === undefined ? global : faults.get(label) ?? null;
    },
    connections() {
      return [...conns].map((c) => ({ label: c.label, stalled: c.stalled }));
    },
    get accepted() {
      return accepted;
    },
    get resets() {
      return resets;
    },
    get bytesToTarget() {
      return bytesToTarget;
    },
    get bytesFromTarget() {
      return bytesFromTarget;
    },
    close() {
      for (const c of [...conns]) destroy(c, false);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
