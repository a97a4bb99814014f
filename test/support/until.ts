/**
 * Polls `probe` every 100 ms until it returns something other than null, and returns that; throws
 * after `timeoutMs`, naming `what` and the last error the probe threw (a probe may throw while the
 * condition is not there yet, e.g. NOT_COORDINATOR during a failover).
 */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== null) return v;
      last = null;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (${String(last)})` : ''}`);
}
