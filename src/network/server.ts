/**
 * Listeners (Kafka's `listeners`): one net.Server each (a tls.Server for SSL and SASL_SSL);
 * accepts connections and hands them to a Connection, with a SaslSession on SASL listeners and
 * the client certificate's principal on SSL listeners. stop(): stop accepting, let every
 * connection answer what it has received, close.
 *
 * TLS connections read through 'data' events (the decrypted stream cannot use `onread`), so the
 * frame pooling of frame-reader.ts applies to PLAINTEXT and SASL_PLAINTEXT listeners only.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { Connection } from './connection.js';
import { FramePool, FrameReader, adoptSocket } from './frame-reader.js';
import { SlabPool } from './read-slabs.js';
import type { ConnectionObserver, RequestProcessor } from './request-processor.js';
import { SaslSession, type SaslDeps } from '../security/sasl/authenticator.js';
import type { Logger } from '../logger.js';
import type { ListenerSecurity } from '../security/listener-security.js';
import { ANONYMOUS, subjectDn } from '../security/principal.js';

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
  private readonly held: { socket: Socket; listener: string; principal?: string }[] = [];

  /** `processing: false`: bind now, serve after enableRequestProcessing(). */
  constructor(private readonly opts: {
    processor: RequestProcessor; observer: ConnectionObserver; logger: Logger; maxFrameBytes: number; processing?: boolean;
    /** SASL's needs: the time, and SCRAM credentials by user and mechanism. */
    sasl?: SaslDeps;
    /** Per listener name; a listener without an entry is PLAINTEXT. */
    security?: ReadonlyMap<string, ListenerSecurity>;
  }) {
    this.processing = opts.processing ?? true;
  }

  async listen(listeners: ListenerSpec[]): Promise<BoundListener[]> {
    for (const l of listeners) {
      const security = this.opts.security?.get(l.name);
      // Paused on accept so that the socket can be re-wrapped to read through a FrameReader
      // before any byte is read.
      const server = security?.tls ? this.tlsServer(l.name, security) : createServer({ noDelay: true, pauseOnConnect: true }, (accepted) => {
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

  /** An SSL / SASL_SSL listener: connections are handed over once their TLS handshake is done. */
  private tlsServer(listenerName: string, security: ListenerSecurity): Server {
    const tls = security.tls!;
    const server = createTlsServer({ ...tls.options, noDelay: true }, (secured: TLSSocket) => {
      secured.pause();
      let principal: string | undefined;
      if (tls.clientAuth !== 'none') {
        const cert = secured.getPeerX509Certificate();
        if (cert && !secured.authorized) {
          // A certificate that does not verify fails the handshake in Kafka even when only requested.
          this.opts.logger.debug(`${listenerName}: client certificate refused: ${String(secured.authorizationError)}`);
          secured.destroy();
          return;
        }
        if (security.sasl) {
          // SASL_SSL: the certificate was verified; the principal comes from SASL.
        } else if (cert) {
          try {
            principal = `User:${tls.mapper.map(subjectDn(cert))}`;
          } catch (err) {
            this.opts.logger.warn(`${listenerName}: ${(err as Error).message}`);
            secured.destroy();
            return;
          }
        } else {
          principal = ANONYMOUS;
        }
      }
      if (!this.processing) {
        this.held.push({ socket: secured, listener: listenerName, principal });
        secured.once('close', () => {
          const i = this.held.findIndex((h) => h.socket === secured);
          if (i >= 0) this.held.splice(i, 1);
        });
        return;
      }
      this.adopt(secured, listenerName, principal);
    });
    // Handshake failures (a plaintext client, garbage, an untrusted certificate): that socket only.
    server.on('tlsClientError', (err, socket) => {
      this.opts.logger.debug(`${listenerName}: TLS handshake with ${socket.remoteAddress}:${socket.remotePort} failed: ${err.message}`);
      socket.destroy();
    });
    return server;
  }

  private adopt(accepted: Socket, listenerName: string, principal?: string): void {
    const security = this.opts.security?.get(listenerName);
    const tls = security?.tls != null;
    const reader = new FrameReader(this.opts.maxFrameBytes, this.framePool);
    const adopted = tls ? null : adoptSocket(accepted, reader);
    const socket = adopted ?? accepted;
    const sasl = security?.sasl && this.opts.sasl ? new SaslSession(security.sasl, this.opts.sasl) : undefined;
    const c = new Connection(socket, {
      id: this.nextId++,
      maxFrameBytes: this.opts.maxFrameBytes,
      listenerName,
      processor: this.opts.processor,
      observer: this.opts.observer,
      logger: this.opts.logger,
      reader: adopted ? { reader, pool: this.framePool } : undefined,
      slabs: this.slabPool,
      sasl,
      principal,
      onClosed: this.connectionClosed,
    });
    if (!adopted) accepted.resume();
    this.connections.add(c);
    this.opts.observer.connectionOpened(listenerName);
    this.onConnection?.(c);
  }

  private readonly connectionClosed = (c: Connection): void => {
    this.connections.delete(c);
    this.opts.observer.connectionClosed(c.listenerName);
  };

  /** Starts serving, and serves the connections that waited; until then listen() only binds. */
  enableRequestProcessing(): void {
    if (this.processing) return;
    this.processing = true;
    for (const h of this.held.splice(0)) if (!h.socket.destroyed) this.adopt(h.socket, h.listener, h.principal);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Closes every open connection at once (test control: disconnect all clients). */
  dropAll(): void {
    for (const c of this.connections) c.destroy('dropped by the test control');
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
