/**
 * Normalising errors: every client reports a broker error in its own way (a code, a class name,
 * a message). The suite compares Kafka's protocol names (protocol-specs/errors.json), and labels
 * anything else `client:<what the client said>` so that it is visible, never mistaken for success.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrName } from './types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const table: { code: number; name: string }[] = JSON.parse(readFileSync(path.join(ROOT, 'protocol-specs', 'errors.json'), 'utf8'));
const BY_CODE = new Map(table.map((e) => [e.code, e.name]));
const NAMES = new Set(table.map((e) => e.name));

export function kafkaName(code: number): string | undefined {
  return BY_CODE.get(code);
}

/** librdkafka's local errors that stand for a broker condition (the broker code never reaches the app). */
const RDKAFKA_LOCAL: Record<string, string> = {
  _UNKNOWN_TOPIC: 'UNKNOWN_TOPIC_OR_PARTITION',
  _UNKNOWN_PARTITION: 'UNKNOWN_TOPIC_OR_PARTITION',
  _MSG_SIZE_TOO_LARGE: 'client:MSG_SIZE_TOO_LARGE',
};

/** librdkafka's err2str texts for broker errors (kcat prints only these). */
const RDKAFKA_TEXT: [RegExp, string][] = [
  [/Broker: Message size too large/i, 'MESSAGE_TOO_LARGE'],
  [/Broker: Unknown topic or partition|Local: Unknown topic|Local: Unknown partition/i, 'UNKNOWN_TOPIC_OR_PARTITION'],
  [/Broker: Invalid topic/i, 'INVALID_TOPIC_EXCEPTION'],
  [/Broker: Offset out of range/i, 'OFFSET_OUT_OF_RANGE'],
  [/Broker: Topic already exists/i, 'TOPIC_ALREADY_EXISTS'],
  [/Broker: Record is too large|Broker: Request parameters do not satisfy the configured policy/i, 'client:other-broker-error'],
  [/Local: Message timed out/i, 'client:MSG_TIMED_OUT'],
];

export function fromText(text: string): ErrName {
  for (const [re, name] of RDKAFKA_TEXT) if (re.test(text)) return name;
  return null;
}

/** {code, name, str} as the Python agents report errors. */
export function fromPython(e: { code: number | null; name: string; str: string } | null | undefined): ErrName {
  if (!e) return null;
  if (typeof e.code === 'number' && e.code > 0 && BY_CODE.has(e.code)) return BY_CODE.get(e.code)!;
  if (RDKAFKA_LOCAL[e.name]) return RDKAFKA_LOCAL[e.name];
  const t = fromText(e.str ?? '');
  if (t) return t;
  return `client:${e.name}`;
}

/** Searches a JS error (kafkajs, platformatic: nested causes, AggregateErrors, retries) for a Kafka error. */
export function fromJs(err: unknown): ErrName {
  const seen = new Set<unknown>();
  const visit = (e: any, depth: number): string | null => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 8) return null;
    seen.add(e);
    // platformatic ProtocolError: apiId (name) / apiCode (number); kafkajs: type (name) + code.
    if (typeof e.apiId === 'string' && NAMES.has(e.apiId)) return e.apiId;
    if (typeof e.type === 'string' && NAMES.has(e.type)) return e.type;
    if (typeof e.apiCode === 'number' && BY_CODE.has(e.apiCode) && e.apiCode !== 0) return BY_CODE.get(e.apiCode)!;
    if (typeof e.errorCode === 'number' && e.errorCode !== 0 && BY_CODE.has(e.errorCode)) return BY_CODE.get(e.errorCode)!;
    for (const k of ['originalError', 'cause', 'error']) {
      const r = visit(e[k], depth + 1);
      if (r) return r;
    }
    if (Array.isArray(e.errors)) {
      for (const x of e.errors) {
        const r = visit(x, depth + 1);
        if (r) return r;
      }
    }
    if (e.response?.errors && typeof e.response.errors === 'object') {
      for (const x of Object.values(e.response.errors)) {
        const r = visit(x, depth + 1);
        if (r) return r;
      }
    }
    return null;
  };
  const found = visit(err, 0);
  if (found) return found;
  const e = err as any;
  const label = e?.code ?? e?.name ?? 'Error';
  const msg = String(e?.message ?? e).slice(0, 120);
  return `client:${label}: ${msg}`;
}
