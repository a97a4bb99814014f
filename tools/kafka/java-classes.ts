/**
 * The tests' Java programs, compiled once per machine instead of once per start.
 *
 * `java File.java` (single-file source mode) runs javac in memory at every start: about a
 * CPU-second before the program's first line, and a run starts such programs dozens of times.
 * javaClasses() compiles a set of sources with javac into a directory of the Kafka cache
 * (cacheRoot()), named by a hash of the classpath, the sources' names and their contents, so an
 * edit compiles again and the checkout stays clean. The directory is built beside its final name
 * and renamed into place: parallel test files may build the same one, and the first rename wins
 * (the others' result is the same). A process compiles a given set at most once.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cacheRoot, javaBin } from './kafka.js';

export interface JavaSources {
  /** The start of the directory's name under the cache (`<name>-<hash>`). */
  name: string;
  /** The .java files, compiled together. */
  sources: readonly string[];
  /** What they compile against (the jars; also part of the hash). */
  classpath: string;
  /** Writes what else the directory holds (service files, tables), before it is published. */
  finish?: (dir: string) => void | Promise<void>;
}

/** JVM options for the tests' client programs: a small heap, quick start, the clients' logging. */
export const CLIENT_JVM_OPTS: readonly string[] = [
  '-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
  `-Dlog4j2.configurationFile=${path.join(process.cwd(), 'compat-tests', 'clients', 'java', 'log4j2.properties')}`,
];

const COMPLETE = '.complete';
const built = new Map<string, Promise<string>>();

/** The directory of the compiled classes (compiled now unless this content was compiled before). */
export function javaClasses(spec: JavaSources): Promise<string> {
  const hash = createHash('sha256').update(spec.classpath);
  for (const f of spec.sources) hash.update('\0').update(path.basename(f)).update('\0').update(readFileSync(f));
  const dir = path.join(cacheRoot(), `${spec.name}-${hash.digest('hex').slice(0, 16)}`);
  let pending = built.get(dir);
  if (!pending) {
    pending = existsSync(path.join(dir, COMPLETE)) ? Promise.resolve(dir) : compile(spec, dir);
    pending.catch(() => built.delete(dir)); // a later call may try again
    built.set(dir, pending);
  }
  return pending;
}

/** One program of one source file: its classpath (its classes, then `classpath`) and main class. */
export async function javaProgram(source: string, classpath: string): Promise<{ classpath: string; main: string }> {
  const main = path.basename(source, '.java');
  const dir = await javaClasses({ name: `java-${main}`, sources: [source], classpath });
  return { classpath: `${dir}${path.delimiter}${classpath}`, main };
}

function javacBin(): string {
  const java = javaBin();
  return java === 'java' ? 'javac' : path.join(path.dirname(java), 'javac');
}

async function compile(spec: JavaSources, dir: string): Promise<string> {
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(javacBin(), ['-encoding', 'UTF-8', '-nowarn', '-cp', spec.classpath, '-d', tmp, ...spec.sources], { timeout: 180_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`javac ${spec.sources.map((s) => path.basename(s)).join(' ')} failed: ${`${stdout}${stderr}`.slice(-3000) || err.message}`));
        else resolve();
      });
    });
    await spec.finish?.(tmp);
    writeFileSync(path.join(tmp, COMPLETE), '');
    try {
      renameSync(tmp, dir);
    } catch (e) {
      if (!existsSync(path.join(dir, COMPLETE))) throw e; // else: another process published it first
    }
    return dir;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
