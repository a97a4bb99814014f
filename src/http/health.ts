/**
 * /health/live: the process serves HTTP (200 while the broker is not stopping).
 * /health/ready: 200 once every partition log is loaded, the Kafka listeners serve requests and,
 * in a cluster, this broker holds its registration (503 otherwise, with the reasons), so a
 * container orchestrator routes clients to it only then. Both answer JSON.
 */
import type { ServerResponse } from 'node:http';
import type { HttpBroker } from './http-broker.js';
import { sendJson } from './respond.js';

export function liveness(broker: HttpBroker, res: ServerResponse): void {
  const live = !broker.stopping;
  sendJson(res, live ? 200 : 503, { status: live ? 'live' : 'stopping' });
}

export function readiness(broker: HttpBroker, serving: boolean, res: ServerResponse): void {
  const reasons: string[] = [];
  if (broker.stopping) reasons.push('stopping');
  if (!serving) reasons.push('starting: logs loading or listeners not serving yet');
  else if (!broker.registered) reasons.push('not registered in the cluster');
  const ready = reasons.length === 0;
  sendJson(res, ready ? 200 : 503, {
    status: ready ? 'ready' : 'not ready', reasons, nodeId: broker.nodeId,
    logs: serving ? broker.logs.allLogs().length : null,
  });
}
