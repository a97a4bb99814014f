/**
 * Topic names and ids as Kafka's controller has them (ReplicationControlManager / Topic.validate):
 * legal names are 1-249 chars of [a-zA-Z0-9._-] and not "." or ".."; topic ids are random
 * version-4 uuids in base64url, never the zero uuid nor one starting with '-'.
 */
import { randomBytes } from 'node:crypto';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

export const MAX_TOPIC_NAME_LENGTH = 249;
const LEGAL = /^[a-zA-Z0-9._-]+$/;

/** null when legal, else Kafka's reason. */
export function topicNameProblem(name: string): string | null {
  if (name.length === 0) return 'Topic name is invalid: the empty string is not allowed';
  if (name === '.' || name === '..') return `Topic name is invalid: '${name}' is not allowed`;
  if (name.length > MAX_TOPIC_NAME_LENGTH) return `Topic name is invalid: the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`;
  if (!LEGAL.test(name)) return `Topic name is invalid: '${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  return null;
}

/**
 * Throws KafkaApiError with Kafka's code and message when `name` cannot be created: an illegal
 * name, an existing topic, or one that collides with an existing topic once '.' and '_' are
 * treated as equal (Kafka's controller refuses those: they share metric names).
 */
export function checkTopicCreatable(topics: ReadonlyMap<string, unknown>, name: string): void {
  const problem = topicNameProblem(name);
  if (problem) throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
  if (topics.has(name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
  const canon = name.replace(/\./g, '_');
  for (const existing of topics.keys()) {
    if (existing.replace(/\./g, '_') === canon) {
      throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${existing}`);
    }
  }
}

export function newUuid(): string {
  for (;;) {
    const b = randomBytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const s = b.toString('base64url');
    // Kafka reserves the zero uuid and ids starting with '-' (they look like CLI flags).
    if (!s.startsWith('-') && s !== 'AAAAAAAAAAAAAAAAAAAAAA') return s;
  }
}

/** Kafka 4.4's Topic.INTERNAL_TOPICS. */
export const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);
