import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default): the
 * kernel never hands these out by itself, neither to `listen(0)` nor as the local port of an
 * outgoing connection, so a port picked here and found free stays free until the child binds it
 * unless another test file picks the same one (1 in 12,000).
 */
const LOW = 20_000;
const HIGH = (() => {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOW + 1000 ? Math.min(first, 32_768) : 0;
  } catch {
    return 0;
  }
})();

function bindable(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      const bound = (s.address() as { port: number }).port;
      s.close(() => resolve(bound));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (for a child-process broker): a random one
 * below the ephemeral range where there is one, else one the kernel picks.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; HIGH > 0 && i < 20; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    try {
      return await bindable(port);
    } catch {
      // taken: try another
    }
  }
  return bindable(0);
}

/**
 * Starts something on ports `start` picks with freePort(), again with fresh ports while it fails
 * because one was taken meanwhile (`inUse(error)`), at most `attempts` times: a port found free
 * can still be bound by another test file before the child process binds it.
 */
export async function onFreshPorts<T>(start: () => Promise<T>, inUse: (error: unknown) => boolean, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      if (attempt >= attempts || !inUse(e)) throw e;
    }
  }
}
