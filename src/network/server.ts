/**
 * Listeners (Kafka's `listeners`): one net.Server each; accepts connections and hands them to a
 * Connection. stop(): stop accepting, let every connection answer what it has received, close.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Connection } from './connection.js';
import { FramePool, FrameReader, adoptSocket } from './frame-reader.js';
import { SlabPool } from './read-slabs.js';
import type { Dispatcher } from '../broker/dispatch.js';
import type { Broker } from '../broker/broker.js';
import type { Logger } from '../logger.js';

export interface ListenerSpec {
  name: string;
  host: string;
  port: number;
}

export interface BoundListener extends ListenerSpec {
  /** The port actually bound (differs from `port` when 0 was asked). */
  boundPort: number;
}

export class SocketServer {
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  private nextId = 1;
  readonly bound: BoundListener[] = [];
  /** Called when a connection is accepted (test control uses it). */
  onConnection: ((c: Connection) => void) | null = null;
  /** Buffers for large request frames, shared by every connection (see frame-reader.ts). */
  readonly framePool = new FramePool();
  /** Recycled memory for Fetch responses' segment reads (see read-slabs.ts). */
  readonly slabPool = new SlabPool();
  private processing: boolean;
  private readonly held: { socket: Socket; listener: string }[] = [];

  /** `processing: false`: bind now, serve after enableRequestProcessing(). */
  constructor(private readonly opts: { dispatcher: Dispatcher; broker: Broker; log: Logger; maxFrameBytes: number; processing?: boolean }) {
    this.processing = opts.processing ?? true;
  }

  async listen(listeners: ListenerSpec[]): Promise<BoundListener[]> {
    for (const l of listeners) {
      // Paused on accept so that the socket can be re-wrapped to read through a FrameReader
      // before any byte is read.
      const server = createServer({ noDelay: true, pauseOnConnect: true }, (accepted) => {
        // Before the broker is ready (it registers its bound ports in the cluster first), accepted
        // sockets wait, paused, as Kafka's acceptors wait for enableRequestProcessing.
        if (!this.processing) {
          this.held.push({ socket: accepted, listener: l.name });
          accepted.once('close', () => {
            const i = this.held.findIndex((h) => h.socket === accepted);
            if (i >= 0) this.held.splice(i, 1);
          });
          return;
        }
        this.adopt(accepted, l.name);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: l.port, host: l.host || undefined }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const addr = server.address();
      const boundPort = typeof addr === 'object' && addr ? addr.port : l.port;
      this.servers.push(server);
      this.bound.push({ ...l, boundPort });
    }
    return this.bound;
  }

  private adopt(accepted: Socket, listenerName: string): void {
    const reader = new FrameReader(this.opts.maxFrameBytes, this.framePool);
    const adopted = adoptSocket(accepted, reader);
    const socket = adopted ?? accepted;
    const c = new Connection(socket, {
      id: this.nextId++,
      maxFrameBytes: this.opts.maxFrameBytes,
      listenerName,
      dispatcher: this.opts.dispatcher,
      log: this.opts.log,
      baseContext: { broker: this.opts.broker },
      reader: adopted ? { reader, pool: this.framePool } : undefined,
      slabs: this.slabPool,
    });
    if (!adopted) accepted.resume();
    this.connections.add(c);
    void c.closed.then(() => this.connections.delete(c));
    this.onConnection?.(c);
  }

  /** Starts serving, and serves the connections that waited; until then listen() only binds. */
  enableRequestProcessing(): void {
    if (this.processing) return;
    this.processing = true;
    for (const h of this.held.splice(0)) if (!h.socket.destroyed) this.adopt(h.socket, h.listener);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Closes every open connection at once (test control: disconnect all clients). */
  dropAll(): void {
    for (const c of this.connections) c.destroy();
  }

  async stop(): Promise<void> {
    for (const h of this.held.splice(0)) h.socket.destroy();
    const closing = this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    await Promise.all([...this.connections].map((c) => c.drainAndClose()));
    await Promise.all(closing);
    this.slabPool.clear();
    this.framePool.clear();
  }
}
