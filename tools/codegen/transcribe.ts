/**
 * Adds or refreshes messages in protocol-specs/ from the upstream schemas (facts only, see
 * upstream.ts): the pinned Kafka release's jar for wire messages, the shared snapshot for internal
 * records (paths.ts upstreamPathFor), with the deliberate differences of overrides.ts.
 *
 *   tsx tools/codegen/transcribe.ts HeartbeatRequest HeartbeatResponse ...
 *   tsx tools/codegen/transcribe.ts --all      (every message already in protocol-specs/)
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readUpstream } from './upstream.js';
import { applyOverrides } from './overrides.js';
import { SPEC_DIR } from './paths.js';
import { upstreamPathFor } from './upstream-paths.js';

let names = process.argv.slice(2);
if (names[0] === '--all') {
  names = readdirSync(join(SPEC_DIR, 'messages')).map((f) => f.replace(/\.json$/, ''));
}
for (const name of names) {
  const src = upstreamPathFor(name);
  if (!src) throw new Error(`no upstream schema named ${name}`);
  const spec = applyOverrides(name, readUpstream(src));
  writeFileSync(join(SPEC_DIR, 'messages', `${name}.json`), JSON.stringify(spec, null, 2) + '\n');
}
console.log(`transcribed ${names.length} messages`);
