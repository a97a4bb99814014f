/**
 * Handler tests without a broker or a socket: a `BrokerServices` made of just the members a test
 * gives (any other member a handler touches fails the test with its name), and a RequestContext
 * around it.
 */
import type { BrokerServices } from '../../src/broker/broker-services.js';
import type { RequestContext } from '../../src/broker/request-context.js';

export function fakeServices(members: Partial<Record<keyof BrokerServices, unknown>>): BrokerServices {
  return new Proxy(members, {
    get(target, key) {
      if (key in target) return target[key as keyof BrokerServices];
      if (typeof key === 'symbol' || key === 'then') return undefined;
      throw new Error(`fake BrokerServices: the test gave no '${key}'`);
    },
  }) as unknown as BrokerServices;
}

export function requestContext(broker: BrokerServices, apiKey: number, apiVersion: number, over: Partial<RequestContext> = {}): RequestContext {
  return {
    broker, apiKey, apiVersion, correlationId: 1, clientId: 'handler-test', connectionId: 1, remoteAddress: '127.0.0.1:1',
    listenerName: 'PLAINTEXT', principal: 'User:ANONYMOUS', closed: new AbortController().signal, ...over,
  };
}
