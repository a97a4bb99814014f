/** `/`: the cluster (id, controller), its brokers and their endpoints, this broker's figures, the live chart. */
import type { HttpContext } from '../context.js';
import { sendHtml } from '../respond.js';
import { esc, formatBytes, page, table } from './layout.js';
import { liveChart } from './live.js';

export function clusterPage(ctx: HttpContext): void {
  const b = ctx.broker;
  const cache = b.metadataCache;
  const controller = cache.controller;
  const brokers = [...cache.brokers.values()].sort((x, y) => x.nodeId - y.nodeId);
  const rows = brokers.map((r) => [
    `${esc(r.nodeId)}${r.nodeId === b.nodeId ? ' <span class="muted">(this broker)</span>' : ''}`,
    r.endpoints.map((e) => `<code>${esc(e.name)}://${esc(e.host)}:${esc(e.port)}</code>`).join('<br>'),
    esc(r.rack ?? '—'),
    controller?.nodeId === r.nodeId ? 'active controller' : '',
  ]);
  const logs = b.logs.allLogs();
  let bytes = 0;
  for (const l of logs) bytes += l.sizeBytes;
  let messagesIn = 0, bytesIn = 0, bytesOut = 0;
  for (const t of b.metrics.topics.values()) {
    messagesIn += t.messagesIn;
    bytesIn += t.bytesIn;
    bytesOut += t.bytesOut;
  }
  const partitions = b.replicaManager?.allPartitions() ?? [];
  const under = partitions.filter((p) => p.isLeader && p.isr.length < p.replicas.length).length;
  let connections = 0;
  for (const l of b.metrics.listeners.values()) connections += l.active;
  const card = (label: string, v: string, id: string) => `<div class="card" id="${id}"><span class="muted">${esc(label)}</span><b>${v}</b></div>`;
  const body = `<p>Cluster <code id="cluster-id">${esc(cache.clusterId ?? '—')}</code> · controller ${controller ? `node ${esc(controller.nodeId)}` : '<span class="danger">none</span>'}</p>`
    + `<div class="cards">${card('topics', esc(cache.topics.size), 'card-topics')}${card('partitions here', esc(partitions.length), 'card-partitions')}`
    + `${card('under-replicated', esc(under), 'card-under')}${card('data on disk', esc(formatBytes(bytes)), 'card-bytes')}`
    + `${card('records in', esc(messagesIn), 'card-in')}${card('bytes in / out', `${esc(formatBytes(bytesIn))} / ${esc(formatBytes(bytesOut))}`, 'card-bytes-io')}`
    + `${card('connections', esc(connections), 'card-connections')}</div>`
    + `<h2>Brokers</h2>${table(['Node', 'Endpoints', 'Rack', 'Role'], rows, { id: 'brokers' })}`
    + `<h2>Live: records in/out per second and consumer lag</h2>${liveChart()}`
    + `<p class="muted">Prometheus: <a href="/metrics">/metrics</a> · health: <a href="/health/ready">/health/ready</a></p>`;
  sendHtml(ctx.res, 200, page(ctx, 'Cluster', body, { section: '/', script: true }));
}
