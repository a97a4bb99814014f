/**
 * Adds or refreshes messages in protocol-specs/ from the upstream schemas in
 * ../shared/kafka-protocol (facts only, see upstream.ts).
 *
 *   tsx tools/codegen/transcribe.ts HeartbeatRequest HeartbeatResponse ...
 *   tsx tools/codegen/transcribe.ts --all      (every message already in protocol-specs/)
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readUpstream } from './upstream.js';
import { SPEC_DIR, UPSTREAM_DIR, upstreamPathFor } from './paths.js';

let names = process.argv.slice(2);
if (names[0] === '--all') {
  names = readdirSync(join(SPEC_DIR, 'messages')).map((f) => f.replace(/\.json$/, ''));
}
if (!existsSync(UPSTREAM_DIR)) {
  console.error(`no upstream schemas at ${UPSTREAM_DIR}`);
  process.exit(1);
}
for (const name of names) {
  const src = upstreamPathFor(name);
  if (!src) throw new Error(`no upstream schema named ${name}`);
  const spec = readUpstream(src);
  writeFileSync(join(SPEC_DIR, 'messages', `${name}.json`), JSON.stringify(spec, null, 2) + '\n');
}
console.log(`transcribed ${names.length} messages`);
