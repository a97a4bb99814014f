/**
 * Reads upstream Kafka message schemas (JSON with // comments) and reduces them to the facts
 * protocol-specs/ keeps: names, types, versions, nullability, tags, defaults. Prose (`about`,
 * comments) and upstream-only bookkeeping (`listeners`, `entityType`) are dropped.
 *
 * Used by `tools/codegen/transcribe.ts` (to add a message to protocol-specs/) and by the drift
 * test (to check protocol-specs/ against ../shared/kafka-protocol when that folder exists).
 */
import { readFileSync } from 'node:fs';

const KEPT_MESSAGE_KEYS = ['apiKey', 'type', 'name', 'validVersions', 'flexibleVersions', 'latestVersionUnstable', 'fields', 'commonStructs'];
const KEPT_FIELD_KEYS = ['name', 'type', 'versions', 'nullableVersions', 'taggedVersions', 'tag', 'default', 'ignorable', 'mapKey', 'flexibleVersions', 'zeroCopy', 'fields'];

/** Removes // comments that are outside strings. */
export function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') { out += text[++i]; continue; }
      if (c === '"') inString = false;
      continue;
    }
    if (c === '"') { inString = true; out += c; continue; }
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
      continue;
    }
    out += c;
  }
  return out;
}

type Json = Record<string, unknown>;

function pick(obj: Json, keys: string[]): Json {
  const out: Json = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

function reduceFields(fields: unknown): Json[] {
  return (fields as Json[]).map((f) => {
    const r = pick(f, KEPT_FIELD_KEYS);
    if (f.fields) r.fields = reduceFields(f.fields);
    return r;
  });
}

export function reduceMessage(raw: Json): Json {
  const out = pick(raw, KEPT_MESSAGE_KEYS);
  out.fields = reduceFields(raw.fields ?? []);
  if (raw.commonStructs) {
    out.commonStructs = (raw.commonStructs as Json[]).map((s) => ({ ...pick(s, ['name', 'versions']), fields: reduceFields(s.fields) }));
  }
  return out;
}

export function readUpstream(path: string): Json {
  return reduceMessage(JSON.parse(stripJsonComments(readFileSync(path, 'utf8'))) as Json);
}
