/**
 * A TCP proxy that forwards Kafka frames both ways and, once per client id containing
 * "drop-once", swallows the broker's first Produce response and closes that connection. The
 * broker has appended the batch; the client never hears so and retries on a new connection. This
 * is how the idempotent-retries scenario makes a real client retry a batch the broker already has
 * (Kafka's answer to the retry: success with the original offsets, no duplicate).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface DropOnceProxy {
  port: number;
  /** Client ids whose Produce response was dropped. */
  dropped: Set<string>;
  close(): Promise<void>;
}

function frames(onFrame: (f: Buffer) => void): (chunk: Buffer) => void {
  let buf: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 4) {
      const n = buf.readInt32BE(0);
      if (buf.length < 4 + n) break;
      onFrame(buf.subarray(0, 4 + n));
      buf = buf.subarray(4 + n);
    }
  };
}

export async function startDropOnceProxy(listenPort: number, brokerPort: number): Promise<DropOnceProxy> {
  const dropped = new Set<string>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const broker = connect(brokerPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(broker);
    const dropCorrelation = new Set<number>();
    const kill = () => {
      client.destroy();
      broker.destroy();
    };
    client.on('error', kill);
    broker.on('error', kill);
    client.on('close', () => { sockets.delete(client); broker.destroy(); });
    broker.on('close', () => { sockets.delete(broker); client.destroy(); });
    client.on('data', frames((f) => {
      // Request header: size, api_key int16, api_version int16, correlation_id int32, client_id (int16 length + bytes).
      const apiKey = f.readInt16BE(4);
      const correlation = f.readInt32BE(8);
      const len = f.readInt16BE(12);
      const clientId = len >= 0 ? f.subarray(14, 14 + len).toString('utf8') : '';
      if (apiKey === 0 && clientId.includes('drop-once') && !dropped.has(clientId)) {
        dropped.add(clientId);
        dropCorrelation.add(correlation);
      }
      broker.write(f);
    }));
    broker.on('data', frames((f) => {
      const correlation = f.readInt32BE(4);
      if (dropCorrelation.has(correlation)) {
        kill();
        return;
      }
      client.write(f);
    }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () => resolve());
  });
  return {
    port: listenPort,
    dropped,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
