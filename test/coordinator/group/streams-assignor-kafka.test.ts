/**
 * Kafka 4.4's own StickyTaskAssignor is the oracle of Samsa's (assignor/streams-sticky.ts), and
 * java.util.HashMap / PriorityQueue the oracles of java-order.ts: seeded random groups (members,
 * processes, previous active and standby tasks, reported task offsets, stateful and stateless
 * subtopologies, 0-2 standby replicas) go through java/StickyOracle.java (the Kafka jars on the
 * class path) and through Samsa, and every member's active and standby tasks must be the same.
 * Skipped without java.
 * @samsa-timeout 240
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assignStreamsTasks, type StreamsAssignorMember, type StreamsSubtopologySpec } from '../../../src/coordinator/group/assignor/streams-sticky.js';
import { JavaPriorityQueue, javaHashMapOrder, javaStringHash } from '../../../src/coordinator/group/assignor/java-order.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../../tools/kafka/kafka.js';
import { javaProgram } from '../../../tools/kafka/java-classes.js';
import { seededRandom } from '../../support/rng.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const missing = javaMissing();

const rng = seededRandom;

const B64 = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];
const HEX = [...'0123456789abcdef'];
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
/** Member ids as the Streams client makes them (Uuid.toString: 22 base64url characters), or short ones. */
const memberId = (r: () => number) => (r() < 0.8 ? Array.from({ length: 22 }, () => pick(r, B64)).join('') : `m${int(r, 0, 99)}`);
/** Process ids as java.util.UUID.toString. */
const processId = (r: () => number) => [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => pick(r, HEX)).join('')).join('-');

interface Case {
  id: string;
  standby: number;
  subs: Map<string, StreamsSubtopologySpec>;
  members: Map<string, StreamsAssignorMember>;
}

function randomCase(r: () => number, id: string): Case {
  const subs = new Map<string, StreamsSubtopologySpec>();
  const nSubs = int(r, 1, 4);
  for (let i = 0; i < nSubs; i++) subs.set(String(i), { tasks: int(r, 1, 8), stateful: r() < 0.6 });
  const processes = Array.from({ length: int(r, 1, 5) }, () => processId(r));
  const members = new Map<string, StreamsAssignorMember>();
  const nMembers = int(r, 1, 8);
  while (members.size < nMembers) members.set(memberId(r), { processId: pick(r, processes), active: new Map(), standby: new Map(), taskOffsets: new Map() });
  const ids = [...members.keys()];
  const add = (m: Map<string, Set<number>>, s: string, p: number) => (m.get(s) ?? m.set(s, new Set()).get(s)!).add(p);
  const fresh = r() < 0.2;
  for (const [s, spec] of subs) {
    // A partition beyond the count now: tasks of a topic that shrank stay in the members' state.
    for (let p = 0; p < spec.tasks + (r() < 0.1 ? 1 : 0); p++) {
      if (!fresh && r() < 0.7) add(members.get(pick(r, ids))!.active, s, p);
      if (spec.stateful) for (const m of members.values()) if (!fresh && r() < 0.2) add(m.standby, s, p);
      for (const m of members.values()) {
        if (r() < 0.2) {
          const offsets = m.taskOffsets as Map<string, Map<number, bigint>>;
          (offsets.get(s) ?? offsets.set(s, new Map()).get(s)!).set(p, BigInt(r() < 0.5 ? int(r, 0, 3) : int(r, 0, 1_000_000)));
        }
      }
    }
  }
  return { id, standby: int(r, 0, 2), subs, members };
}

const taskList = (m: ReadonlyMap<string, ReadonlySet<number>>) => [...m].flatMap(([s, ps]) => [...ps].map((p) => `${s}_${p}`)).sort();
const orNone = (xs: string[]) => (xs.length === 0 ? '-' : xs.join(','));

function caseText(c: Case): string {
  const lines = [`case ${c.id} ${c.standby}`];
  for (const [s, spec] of c.subs) lines.push(`sub ${s} ${spec.tasks} ${spec.stateful ? 1 : 0}`);
  for (const [id, m] of c.members) {
    const offsets = [...(m.taskOffsets ?? [])].flatMap(([s, ps]) => [...ps].map(([p, o]) => `${s}_${p}=${o}`));
    lines.push(`member ${id} ${m.processId} ${orNone(taskList(m.active))} ${orNone(taskList(m.standby))} ${orNone(offsets)}`);
  }
  lines.push('end');
  return lines.join('\n');
}

function samsaAnswer(c: Case): string {
  const out = assignStreamsTasks({ members: c.members, subtopologies: c.subs, numStandbyReplicas: c.standby });
  const lines = [`case ${c.id}`];
  for (const id of [...out.keys()].sort()) lines.push(`m ${id} A:${taskList(out.get(id)!.active).join(',')} S:${taskList(out.get(id)!.standby).join(',')}`);
  return lines.join('\n');
}

/** Runs the oracle on `input` lines; its output lines. */
async function oracle(input: string[]): Promise<string[]> {
  const prog = await javaProgram(path.join(HERE, 'java', 'StickyOracle.java'), kafkaJars().classpath);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'samsa-sticky-'));
  try {
    const file = path.join(dir, 'cases.txt');
    writeFileSync(file, `${input.join('\n')}\n`);
    const run = spawnSync(javaBin(), [...JVM_OPTS, '-cp', prog.classpath, prog.main, file], { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20 });
    assert.is(run.status, 0, run.stderr);
    return run.stdout.trimEnd().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Random strings grouped by their bucket in a table of 16 (to collide on purpose). */
function colliding(r: () => number, n: number): string[] {
  const byBucket = new Map<number, string[]>();
  for (;;) {
    const s = memberId(r);
    const h = javaStringHash(s);
    const b = (h ^ (h >>> 16)) & 15;
    const list = byBucket.get(b) ?? byBucket.set(b, []).get(b)!;
    if (!list.includes(s)) list.push(s);
    if (list.length === n) return list;
  }
}

test("java-order.ts: HashMap iteration orders and PriorityQueue poll orders are java.util's", async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const r = rng(7);
  const maps: { mode: 'put' | 'computeIfAbsent'; cap: number; keys: string[] }[] = [];
  for (let i = 0; i < 60; i++) {
    const n = int(r, 1, 40);
    const keys = Array.from({ length: n }, () => (r() < 0.5 ? memberId(r) : processId(r)));
    if (r() < 0.3) keys.push(...keys.slice(0, int(r, 1, keys.length)));
    maps.push({ mode: r() < 0.5 ? 'put' : 'computeIfAbsent', cap: r() < 0.5 ? -1 : int(r, 0, 20), keys });
  }
  // Colliding keys: a bucket of 8-12 in a small table (Java resizes instead of making a tree).
  for (const n of [8, 9, 10, 12]) for (const mode of ['put', 'computeIfAbsent'] as const) maps.push({ mode, cap: -1, keys: colliding(r, n) });
  const queues = Array.from({ length: 40 }, () => Array.from({ length: int(r, 1, 30) }, () => int(r, 0, 4)));
  const input = [
    ...maps.map((m) => `hashmap ${m.mode === 'put' ? 'put' : 'compute'} ${m.cap} ${m.keys.join(',')}`),
    ...queues.map((q) => `pq ${q.join(',')}`),
  ];
  const java = await oracle(input);
  const samsa = [
    ...maps.map((m) => javaHashMapOrder(m.keys, { insertion: m.mode, ...(m.cap < 0 ? {} : { initialCapacity: m.cap }) }).join(',')),
    ...queues.map((q) => {
      const pq = new JavaPriorityQueue<[number, number]>((a, b) => a[0] - b[0]);
      q.forEach((x, i) => pq.add([x, i]));
      const order: number[] = [];
      while (!pq.isEmpty()) order.push(pq.poll()![1]);
      return order.join(',');
    }),
  ];
  assert.is(java.length, samsa.length);
  for (let i = 0; i < java.length; i++) assert.is(samsa[i], java[i], `${input[i].slice(0, 200)}`);
});

test("Samsa's sticky assignor places every task as Kafka 4.4's StickyTaskAssignor does (400 random groups)", async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const r = rng(20261207);
  const cases = Array.from({ length: 400 }, (_, i) => randomCase(r, `c${i}`));
  const java = (await oracle(cases.map(caseText))).join('\n').split('\ncase ').map((b, i) => (i === 0 ? b : `case ${b}`));
  assert.is(java.length, cases.length);
  for (let i = 0; i < cases.length; i++) assert.fixture(samsaAnswer(cases[i]), java[i], `case ${i}:\n${caseText(cases[i])}`);
});

test.run();
