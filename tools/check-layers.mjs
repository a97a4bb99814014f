#!/usr/bin/env node
/**
 * The layering rule of src/ (docs/architecture.md, "Rooms and the direction of dependency"):
 * rooms are ordered bottom to top, and a file imports only from its own room or a lower one.
 * `import type` counts: a type import upward still ties a room to the one above it.
 *
 *   node tools/check-layers.mjs [--graph]
 *
 * Reads every `import ... from '...'`, `export ... from '...'` and `import('...')` of src/**.ts,
 * resolves relative specifiers to files, and reports
 *   - each upward edge (a file importing a file of a higher room), and
 *   - each import circle between files (strongly connected components of more than one file),
 * then prints a summary line. Exit status 1 when there is an upward edge or a circle: there is no
 * exception list. `--graph` prints the room-to-room edge counts.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// SAMSA_LAYERS_SRC: another tree to check (the checker's own test).
const SRC = process.env.SAMSA_LAYERS_SRC ? path.resolve(process.env.SAMSA_LAYERS_SRC) : path.join(ROOT, 'src');

/** Rooms bottom to top; the first matching prefix (relative to src/) names a file's room. */
export const ROOMS = [
  ['foundations', ['clock.ts', 'logger.ts', 'sampled-rate.ts']],
  ['protocol', ['protocol/', 'errors.ts']],
  ['config', ['config/', 'config.ts']],
  ['storage', ['storage/']],
  ['remote', ['remote/']],
  ['cluster', ['cluster/']],
  ['security', ['security/']],
  ['replication', ['replication/']],
  ['coordinator', ['coordinator/']],
  ['schema-registry', ['schema-registry/']],
  ['topic-features', ['views/', 'schedule/']],
  ['metrics', ['http/metrics/']],
  ['network', ['network/']],
  ['broker', ['broker/handlers/handler-api', 'broker/']],
  ['handlers', ['broker/handlers/']],
  ['http', ['http/']],
  ['cli', ['cli/']],
  ['testing', ['testing/']],
  ['main', ['main.ts', 'index.ts', 'cli/samsa.ts']],
];
// broker/handlers/ must match "handlers" before "broker/": order the prefixes by length.
const PREFIXES = ROOMS.flatMap(([room, prefixes], rank) => prefixes.map((p) => ({ p, room, rank })))
  .sort((a, b) => b.p.length - a.p.length);

export function roomOf(rel) {
  for (const { p, room, rank } of PREFIXES) if (rel === p || rel.startsWith(p)) return { room, rank };
  return null;
}

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walk(full, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const IMPORT = /(?:^|[;\s}])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function resolve(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts'), base];
  return candidates.find((c) => existsSync(c) && c.endsWith('.ts')) ?? null;
}

export function importGraph() {
  const files = walk(SRC);
  const edges = new Map();
  for (const f of files) {
    const text = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const targets = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      const to = resolve(f, spec);
      if (to && to.startsWith(SRC)) targets.add(to);
    }
    edges.set(f, targets);
  }
  return { files, edges };
}

/** Tarjan's strongly connected components; returns the components of more than one file. */
function circles(files, edges) {
  let index = 0;
  const idx = new Map(), low = new Map(), onStack = new Set(), stack = [], out = [];
  const strong = (v) => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) { strong(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); comp.push(w); } while (w !== v);
      if (comp.length > 1) out.push(comp);
    }
  };
  for (const f of files) if (!idx.has(f)) strong(f);
  return out;
}

function main() {
  const rel = (f) => path.relative(SRC, f).split(path.sep).join('/');
  const { files, edges } = importGraph();
  const problems = [];
  const found = new Set();
  const roomEdges = new Map();
  for (const f of files) {
    const from = roomOf(rel(f));
    if (!from) { problems.push(`no room for src/${rel(f)} (add its folder to ROOMS in tools/check-layers.mjs)`); continue; }
    for (const t of edges.get(f)) {
      const to = roomOf(rel(t));
      if (!to) continue;
      const k = `${from.room} -> ${to.room}`;
      roomEdges.set(k, (roomEdges.get(k) ?? 0) + 1);
      if (to.rank > from.rank) found.add(`${rel(f)} -> ${rel(t)}`);
    }
  }
  const comps = circles(files, edges);
  for (const e of found) problems.push(`upward import: ${e}`);
  for (const c of comps) problems.push(`circle of ${c.length} files: ${c.map(rel).sort().slice(0, 6).join(', ')}${c.length > 6 ? ', ...' : ''}`);
  if (process.argv.includes('--graph')) {
    for (const [k, n] of [...roomEdges].sort()) console.log(`${k}: ${n}`);
  }
  for (const p of problems) console.log(p);
  console.log(`layers: ${files.length} files in ${ROOMS.length} rooms, ${found.size} upward imports, ${comps.length} import circles`);
  process.exit(problems.length > 0 ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
