/**
 * The Kafka Streams word-count instances (compat-tests/frameworks/WordCount.java, on the streams
 * group protocol) of the streams-groups e2e tests: each started on a state directory, all killed
 * and their directories removed at the end.
 */
import { rmSync } from 'node:fs';
import { startJvm, type JvmProcess } from '../../compat-tests/frameworks/jvm.js';

export interface StreamsApps {
  /** Starts an instance of `app` reading `input`, writing `output`, on `stateDir` (printed with `tag` when verbose). */
  start(stateDir: string, tag: string): Promise<JvmProcess>;
  /** Another JVM to kill at the end (a reader). */
  adopt(p: JvmProcess): void;
  /** A directory to remove at the end. */
  dir(d: string): void;
  /** SIGKILLs every instance and waits for the exits. */
  killAll(): Promise<void>;
  removeDirs(): void;
}

export function streamsApps(bootstrap: () => string, app: string, input: string, output: string, verbose: boolean): StreamsApps {
  const apps: JvmProcess[] = [];
  const dirs: string[] = [];
  return {
    async start(stateDir, tag) {
      const p = await startJvm('WordCount', [bootstrap(), app, stateDir, input, output, 'streams'], { onLine: (l) => verbose && console.log(`${tag}: ${l}`) });
      apps.push(p);
      return p;
    },
    adopt: (p) => void apps.push(p),
    dir: (d) => void dirs.push(d),
    async killAll() {
      for (const a of apps) a.kill('SIGKILL');
      await Promise.all(apps.map((a) => a.exited));
    },
    removeDirs() {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
