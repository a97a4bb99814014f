/**
 * Kafka's command-line tools (their main classes: ConfigCommand, DelegationTokenCommand,
 * ConsoleProducer, ...) for the tests, run in a long-lived JVM of this test process
 * (compat-tests/clients/tool-server.ts: ToolServer.java runs each call with its own stdin, stdout,
 * stderr and exit status, as the tool's own JVM would give them) instead of a JVM per call, which
 * costs a JVM start and a cold classpath every time. One server: calls run one after another.
 * While idle it does not keep this process alive; it is ended when this process has nothing else
 * to do.
 */
import { javaRuntime } from '../../compat-tests/clients/jvm.js';
import { ToolServers } from '../../compat-tests/clients/tool-server.js';
import type { RunResult } from './external.js';

let servers: Promise<ToolServers> | null = null;

/** Runs `main` with `args` (and `input` on its stdin); what its own JVM would have answered. */
export async function kafkaTool(main: string, args: readonly string[], opts: { timeoutMs?: number; input?: string } = {}): Promise<RunResult> {
  servers ??= javaRuntime().then((rt) => {
    const s = new ToolServers(rt, 1, true);
    // When nothing else is left to do, the server is ended and waited for, so that its CPU time
    // counts among this process's children (tools/run-tests.mjs reports it); killed on a hard exit.
    process.once('beforeExit', () => s.end());
    process.once('exit', () => s.close());
    return s;
  });
  return (await servers).run(main, [...args], opts.timeoutMs ?? 90_000, opts.input);
}
