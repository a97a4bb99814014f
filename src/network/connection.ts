/**
 * One client connection: frames in, one request at a time, replies strictly in request order.
 *
 * Like Kafka (which mutes a channel while its request is in flight), a connection handles its
 * requests serially: a long-polling Fetch or a JoinGroup waiting for a rebalance holds back the
 * requests behind it, and replies leave in the order requests arrived. Reading pauses when too
 * many frames are queued or the socket's write buffer is full (backpressure).
 * A ProtocolError closes this connection only.
 */
import type { Socket } from 'node:net';
import { ProtocolError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { FrameDecoder } from '../protocol/framing.js';
import type { FramePool, FrameReader, FrameSink } from './frame-reader.js';
import { SlabLease, type SlabPool } from './read-slabs.js';
import type { ConnectionContext, ConnectionObserver, RequestProcessor, ResponseChunks } from './request-processor.js';
import type { Logger } from '../logger.js';
import type { SaslSession } from '../security/sasl/authenticator.js';
import { newClientRole } from '../cluster/partition-retirement.js';

const MAX_QUEUED_FRAMES = 64;
/**
 * Reading also pauses when this many bytes of frames wait: requests are handled one at a time,
 * so reading further ahead only holds more memory (and, with large Produce requests, takes fresh
 * frame buffers instead of recycled ones); the kernel's socket buffer keeps the client going.
 */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** Deferred replies (e.g. acks=all waiting for an fsync) a connection may have outstanding. */
const MAX_DEFERRED_REPLIES = 32;
/** How long a graceful close waits for the client to read the last answers. */
const CLOSE_FLUSH_TIMEOUT_MS = 5000;

export interface ConnectionOptions {
  id: number;
  maxFrameBytes: number;
  listenerName: string;
  processor: RequestProcessor;
  observer: ConnectionObserver;
  logger: Logger;
  /**
   * When set, the socket's reads go through this reader (see frame-reader.ts) and large Produce
   * frames go back to `pool` once their batches are written; otherwise 'data' events and a
   * FrameDecoder are used.
   */
  reader?: { reader: FrameReader; pool: FramePool };
  /** Recycled memory for Fetch responses' segment reads (see read-slabs.ts); absent: plain buffers. */
  slabs?: SlabPool;
  /** SASL listeners: the authentication state; nothing but authentication is served before it completes. */
  sasl?: SaslSession;
  /** The identity before any SASL authentication (an SSL client certificate's mapped DN). */
  principal?: string;
  /** Called once when the connection has closed (one function for all connections: no closure each). */
  onClosed?: (c: Connection) => void;
}

interface QueuedFrame {
  frame: Buffer;
  /** From the FramePool: may be released once the request no longer needs it. */
  pooled: boolean;
  /** performance.now() on arrival (request queue time in /metrics). */
  at: number;
}

/**
 * Per-connection state is kept small (issue 19: an idle connection costs memory for as long as it
 * stays open): the connection is its reader's FrameSink itself, and reports its close through the
 * server's one `onClosed` function rather than a promise of its own.
 */
export class Connection implements FrameSink {
  private readonly decoder: FrameDecoder | null;
  private readonly queue: QueuedFrame[] = [];
  private queuedBytes = 0;
  private processing = false;
  private draining = false;
  private closedFlag = false;
  /** Aborted on close; handed to requests as RequestContext.closed. */
  private readonly closeController = new AbortController();
  /** Producer or consumer requests seen on this connection (cluster/partition-retirement.ts). */
  private readonly clientRole = newClientRole();
  private readonly remoteAddress: string;
  /** The connection's identity (RequestContext.principal); set by authentication. */
  principal = 'User:ANONYMOUS';
  /** SASL listeners only (null elsewhere: one comparison per request). */
  private readonly sasl: SaslSession | null;
  /** Resolves when the current request (and everything queued) has been answered. */
  private idleWaiters: (() => void)[] = [];
  /** Replies that are not ready yet, in request order; later replies wait behind them. */
  private deferred: Promise<Buffer[] | null>[] = [];
  /** The last deferred reply's write (null until a reply is deferred: most connections never do). */
  private deferredTail: Promise<void> | null = null;
  /** Why the connection ends, logged at close (the client closed it unless something else said why). */
  private closeReason: string | null = null;
  /**
   * The broker ends this connection (a protocol error, SASL, stop): requests not yet processed are
   * dropped. When the client ends it (EOF or a socket error) the requests it sent before are still
   * processed and only their answers dropped, as Kafka's Selector closes gracefully: an acks=0
   * producer that sends and disconnects at once loses nothing.
   */
  private brokerCloses = false;
  /** onClosed and the idle waiters ran (after the last queued request, for a client close). */
  private finished = false;
  /** A framing error: nothing more is read; the connection closes once the queue is processed. */
  private readFailed = false;

  constructor(private readonly socket: Socket, private readonly opts: ConnectionOptions) {
    this.remoteAddress = `${socket.remoteAddress}:${socket.remotePort}`;
    this.sasl = opts.sasl ?? null;
    if (opts.principal !== undefined) this.principal = opts.principal;
    socket.setNoDelay(true);
    if (opts.reader) {
      this.decoder = null;
      opts.reader.reader.sink = this;
    } else {
      this.decoder = new FrameDecoder(opts.maxFrameBytes);
      socket.on('data', (chunk: Buffer) => this.onData(chunk));
    }
    socket.on('error', (err) => {
      this.closeReason ??= `socket error: ${err.message}`;
      opts.logger.debug(`connection ${opts.id} ${this.remoteAddress}: ${err.message}`);
    });
    socket.on('close', () => this.onClose());
    socket.on('drain', () => this.maybeResume());
  }

  get id(): number {
    return this.opts.id;
  }

  private onData(chunk: Buffer): void {
    if (this.closedFlag || this.draining || this.readFailed) return;
    const frames: Buffer[] = [];
    let error: unknown = null;
    try {
      this.decoder!.push(chunk, frames);
    } catch (err) {
      error = err;
    }
    for (const frame of frames) this.onFrame(frame, false);
    if (error !== null) this.onError(error);
  }

  get listenerName(): string {
    return this.opts.listenerName;
  }

  /**
   * FrameSink: a framing error (a size below the minimum or above socket.request.max.bytes).
   * Nothing more is read; the frames received before it are still processed, then the connection
   * closes: Kafka reads one request at a time, so it meets the bad size only after those.
   */
  onError(err: unknown): void {
    if (this.closedFlag || this.readFailed) return;
    this.readFailed = true;
    this.closeReason ??= `protocol error: ${(err as Error)?.message ?? String(err)}`;
    this.socket.pause();
    if (!this.processing && this.queue.length === 0) this.destroy('');
  }

  /** FrameSink (and the 'data' path): one complete request frame. */
  onFrame(frame: Buffer, pooled: boolean): void {
    if (this.closedFlag || this.draining || this.readFailed) return;
    this.queue.push({ frame, pooled, at: performance.now() });
    this.queuedBytes += frame.length;
    if (this.queue.length >= MAX_QUEUED_FRAMES || this.queuedBytes >= MAX_QUEUED_BYTES) this.socket.pause();
    if (!this.processing) void this.pump();
  }

  private async pump(): Promise<void> {
    this.processing = true;
    try {
      // The queue is emptied when the broker closes the connection; a client close leaves it to finish.
      while (this.queue.length > 0) {
        const { frame, pooled, at } = this.queue.shift()!;
        this.queuedBytes -= frame.length;
        const sasl = this.sasl;
        if (sasl !== null) {
          const admission = sasl.admit(frame);
          if (admission === 'raw') {
            const out = await sasl.rawToken(frame);
            if (sasl.principal !== null) this.principal = sasl.principal;
            if (out && !this.closedFlag) this.write([out]);
            if (!sasl.failed) continue;
            if (sasl.failure !== null) this.authenticationFailed(sasl.failure);
          }
          if (admission === 'refuse') {
            try {
              this.write(this.opts.processor.errorAnswer(frame, ErrorCode.ILLEGAL_SASL_STATE, this.baseContext()));
            } catch (err) {
              this.opts.logger.debug(`connection ${this.opts.id}: ${(err as Error).message}`);
            }
          }
          if (admission !== 'dispatch') {
            this.closeReason ??= `request refused by SASL state ${sasl.state}`;
            this.closeAfterWrites();
            break;
          }
        }
        const recyclable = pooled && this.opts.processor.recyclable(frame);
        const lease = this.opts.slabs && this.opts.processor.lendsReadBuffers(frame) ? new SlabLease(this.opts.slabs) : undefined;
        const reply = await this.opts.processor.process(frame, {
          connectionId: this.opts.id,
          remoteAddress: this.remoteAddress,
          listenerName: this.opts.listenerName,
          principal: this.principal,
          closed: this.closeController.signal,
          readBuffers: lease,
          sasl: sasl ?? undefined,
          clientRole: this.clientRole,
        }, at);
        // The request's batches are in the segment and nothing refers to the frame any more.
        if (recyclable && this.opts.processor.recyclable(frame)) this.opts.reader!.pool.release(frame);
        if (reply && 'later' in reply) {
          this.defer(reply.later, lease);
          if (this.deferred.length >= MAX_DEFERRED_REPLIES) await this.deferred[0].catch(() => undefined);
        } else if (this.deferred.length > 0) {
          this.defer(Promise.resolve(reply), lease);
        } else if (reply && !this.closedFlag) {
          this.write(reply, lease);
        } else {
          lease?.release();
        }
        if (sasl !== null) {
          if (sasl.principal !== null && this.principal !== sasl.principal) {
            this.principal = sasl.principal;
            this.opts.observer.authenticated(this.opts.listenerName, true);
          }
          if (sasl.closeAfterReply) {
            if (sasl.failure !== null) this.authenticationFailed(sasl.failure);
            this.closeReason ??= 'SASL session ended (re-authentication required or failed)';
            this.closeAfterWrites();
            break;
          }
        }
        this.maybeResume();
        // A client over its quota: nothing more is read from it for the throttle time (Kafka mutes the channel).
        const mute = this.opts.observer.takeThrottle(this.opts.id);
        if (mute > 0 && !this.closedFlag) await new Promise((r) => setTimeout(r, mute));
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.processing = false;
      if (this.queue.length === 0) {
        if (this.readFailed && !this.closedFlag) this.destroy('');
        if (this.closedFlag) {
          this.finish();
        } else {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      }
    }
  }

  /** Queues a reply that becomes ready later; replies are written strictly in request order. */
  private defer(p: Promise<Buffer[] | null>, lease: SlabLease | undefined): void {
    p.catch(() => undefined);
    this.deferred.push(p);
    this.deferredTail = (this.deferredTail ?? Promise.resolve()).then(async () => {
      let written = false;
      try {
        const chunks = await p;
        if (chunks && !this.closedFlag) {
          this.write(chunks, lease);
          written = true;
        }
      } catch (err) {
        this.fail(err);
      } finally {
        if (!written) lease?.release();
        this.deferred.shift();
      }
    });
  }

  /** Writes one response; `lease`'s buffers are given back once the socket is done with them. */
  private write(chunks: ResponseChunks, lease?: SlabLease): void {
    const stats = chunks.sendStats;
    let done: (() => void) | undefined = lease ? () => lease.release() : undefined;
    if (stats !== undefined) {
      // ResponseSendTimeMs: until the socket handed the whole response to the kernel.
      const startedAt = performance.now();
      done = () => {
        stats.responseSendTime.observe(performance.now() - startedAt);
        lease?.release();
      };
    }
    if (chunks.length === 1) {
      this.socket.write(chunks[0], done);
      return;
    }
    this.socket.cork();
    const last = chunks.length - 1;
    for (let i = 0; i < last; i++) this.socket.write(chunks[i]);
    this.socket.write(chunks[last], done);
    this.socket.uncork();
  }

  private maybeResume(): void {
    if (this.closedFlag || this.draining) return;
    if (this.queue.length < MAX_QUEUED_FRAMES / 2 && this.queuedBytes < MAX_QUEUED_BYTES / 2 && !this.socket.writableNeedDrain && this.socket.isPaused()) {
      this.socket.resume();
    }
  }

  /** Kafka logs failed logins at INFO ("Failed authentication with ..."); /metrics counts them. */
  private authenticationFailed(failure: string): void {
    this.opts.logger.info(`Failed authentication with ${this.remoteAddress} on ${this.opts.listenerName} (${failure})`, { listener: this.opts.listenerName, remote: this.remoteAddress });
    this.closeReason ??= `authentication failed (${failure})`;
    this.opts.observer.authenticated(this.opts.listenerName, false);
  }

  private fail(err: unknown): void {
    this.brokerCloses = true;
    if (err instanceof ProtocolError) {
      this.closeReason ??= `protocol error: ${err.message}`;
    } else {
      this.closeReason ??= `internal error: ${(err as Error)?.message ?? String(err)}`;
      this.opts.logger.error(`connection ${this.opts.id} from ${this.remoteAddress} failed`, err);
    }
    this.destroy();
  }

  /** The request context without a request (for answers built outside dispatch). */
  private baseContext(): ConnectionContext {
    return {
      connectionId: this.opts.id, remoteAddress: this.remoteAddress,
      listenerName: this.opts.listenerName, principal: this.principal, closed: this.closeController.signal,
    };
  }

  /** Stops reading, lets the socket flush what was written (bounded), then closes. */
  private closeAfterWrites(): void {
    if (this.closedFlag) return;
    this.brokerCloses = true;
    this.draining = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    const timer = setTimeout(() => this.destroy(), CLOSE_FLUSH_TIMEOUT_MS);
    timer.unref();
    this.socket.end(() => {
      clearTimeout(timer);
      this.destroy();
    });
  }

  destroy(reason?: string): void {
    if (reason !== undefined) {
      this.closeReason ??= reason;
      this.brokerCloses = true;
    }
    this.socket.destroy();
    this.onClose();
  }

  private onClose(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    const why = this.closeReason ?? (this.draining ? 'broker closing it' : 'closed by the client');
    this.opts.logger.debug(`connection ${this.opts.id} from ${this.remoteAddress} on ${this.opts.listenerName} closed: ${why}`, {
      connectionId: this.opts.id, remote: this.remoteAddress, listener: this.opts.listenerName, principal: this.principal, reason: why,
    });
    this.closeController.abort();
    if (this.brokerCloses || this.draining) {
      this.queue.length = 0;
      this.queuedBytes = 0;
    }
    // A client close with requests still queued: they are processed (answers dropped), then finish.
    if (this.processing) return;
    if (this.queue.length > 0) {
      void this.pump();
      return;
    }
    this.finish();
  }

  /** Once the connection is closed and has nothing left to process: the server forgets it. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.opts.onClosed?.(this);
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Graceful stop: read nothing more, answer what was received, then close. */
  async drainAndClose(): Promise<void> {
    this.closeReason ??= 'broker stopping';
    this.draining = true;
    this.socket.pause();
    if (this.processing || this.queue.length > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    await this.deferredTail;
    if (!this.closedFlag) {
      // A client that stopped reading must not hold the broker's shutdown: give the socket a
      // bounded time to flush what was answered, then close it anyway.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, CLOSE_FLUSH_TIMEOUT_MS);
        timer.unref();
        this.socket.end(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.destroy();
    }
  }
}
