/**
 * Handler tests without a broker or a socket: a `BrokerServices` made of just the members a test
 * gives (any other member a handler touches fails the test with its name), and a RequestContext
 * around it.
 */
import type { BrokerServices } from '../../src/broker/broker-services.js';
import type { RequestContext } from '../../src/broker/request-context.js';
import type { MetadataCache } from '../../src/cluster/metadata-cache.js';
import type { TopicRecord } from '../../src/cluster/metadata-store.js';
import { createHash } from 'node:crypto';

export function fakeServices(members: Partial<Record<keyof BrokerServices, unknown>>): BrokerServices {
  return strict('BrokerServices', members) as unknown as BrokerServices;
}

export function requestContext(broker: BrokerServices, apiKey: number, apiVersion: number, over: Partial<RequestContext> = {}): RequestContext {
  return {
    broker, apiKey, apiVersion, correlationId: 1, clientId: 'handler-test', connectionId: 1, remoteAddress: '127.0.0.1:1',
    listenerName: 'PLAINTEXT', principal: 'User:ANONYMOUS', closed: new AbortController().signal, ...over,
  };
}

/** A topic as the metadata cache holds it; the id is derived from the name (stable, distinct). */
export function topicRecord(name: string, partitions: number, over: Partial<TopicRecord> = {}): TopicRecord {
  return { name, topicId: createHash('md5').update(name).digest('base64url'), partitions, replicationFactor: 1, configs: {}, isInternal: false, ...over };
}

/**
 * A MetadataCache holding `topics` (topic(), topicById(), topics) plus the members given; like
 * fakeServices, any other member a handler touches fails the test with its name.
 */
export function fakeMetadataCache(topics: TopicRecord[], members: Partial<Record<keyof MetadataCache, unknown>> = {}): MetadataCache {
  const byName = new Map(topics.map((t) => [t.name, t]));
  return strict('MetadataCache', {
    topics: byName,
    topic: (name: string) => byName.get(name),
    topicById: (id: string) => topics.find((t) => t.topicId === id),
    ...members,
  }) as unknown as MetadataCache;
}

/** One authorizer question: operation, resource type and name (AclOperation / ResourceType codes). */
export interface AclCheck { op: number; resourceType: number; name: string }

/**
 * An authorizer that allows what `allow` says yes to (authorizeByResourceType asks `byType`,
 * default no) and records every question in `checks`.
 */
export function fakeAuthorizer(allow: (c: AclCheck) => boolean, byType: (op: number, resourceType: number) => boolean = () => false) {
  const checks: AclCheck[] = [];
  return {
    checks,
    authorize(_principal: string, _address: string, op: number, resourceType: number, name: string): boolean {
      checks.push({ op, resourceType, name });
      return allow({ op, resourceType, name });
    },
    authorizeByResourceType(_principal: string, _address: string, op: number, resourceType: number): boolean {
      return byType(op, resourceType);
    },
  };
}

function strict(what: string, members: Record<string, unknown>): object {
  return new Proxy(members, {
    get(target, key) {
      if (key in target) return target[key as string];
      if (typeof key === 'symbol' || key === 'then') return undefined;
      throw new Error(`fake ${what}: the test gave no '${key}'`);
    },
  });
}

/** What `run` throws (or its promise rejects with); fails the test when it does not throw. */
export async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected it to throw');
}
