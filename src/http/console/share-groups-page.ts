/**
 * `/share-groups` (every share group this broker coordinates: state, members, share-partitions,
 * lag) and `/share-groups/<id>` (members with their assignments and, per share-partition, the
 * start offset, lag, and the in-flight and archived records of its persisted state), read by
 * src/http/share-groups.ts.
 */
import type { HttpContext } from '../context.js';
import { BadRequest } from '../context.js';
import { sendHtml } from '../respond.js';
import { esc, page, pathFor, table } from './layout.js';
import { describeShareGroup, listShareGroups } from '../share-groups.js';

const num = (v: bigint | number | null, cls = '') => `<span class="num${cls ? ` ${cls}` : ''}">${v === null ? '—' : esc(v)}</span>`;

export async function shareGroupsPage(ctx: HttpContext): Promise<void> {
  const groups = await listShareGroups(ctx.broker);
  const rows = groups.map((g) => {
    const lag = (g.partitions ?? []).reduce((n, p) => n + (p.lag ?? 0n), 0n);
    return [
      `<a href="${esc(pathFor('share-groups', g.groupId))}">${esc(g.groupId)}</a>`, esc(g.state),
      num(g.members.length, 'members'), num(g.partitions?.length ?? null, 'share-partitions'), num(lag, 'lag'),
    ];
  });
  const body = table(['Group', 'State', 'Members', 'Share-partitions', 'Lag'], rows, { id: 'share-groups', empty: 'No share groups on this coordinator.' })
    + '<p class="muted">Share groups (KIP-932) whose coordinator is this broker (the leader of their __consumer_offsets partition).'
    + ' Lag: records up to the high watermark not yet acknowledged or archived.</p>';
  sendHtml(ctx.res, 200, page(ctx, 'Share groups', body, { section: '/share-groups' }));
}

export async function shareGroupPage(ctx: HttpContext, groupId: string): Promise<void> {
  const g = await describeShareGroup(ctx.broker, groupId);
  if (!g) throw new BadRequest(404, `no share group ${groupId} on this coordinator`);
  const members = g.members.map((m) => [
    `<code>${esc(m.memberId)}</code>`, esc(m.clientId), esc(m.clientHost), esc(m.rackId ?? '—'), num(m.memberEpoch),
    esc(m.subscribedTopicNames.join(', ') || '—'),
    m.assignment.map((a) => `${esc(a.topic)}: ${esc(a.partitions.join(', '))}`).join('<br>') || '<span class="muted">nothing</span>',
  ]);
  const parts = (g.partitions ?? []).map((p) => [
    `<a href="${esc(pathFor('topics', p.topic))}">${esc(p.topic)}</a>`, num(p.partition),
    num(p.startOffset, 'start'), num(p.lag, 'lag'), num(p.inFlight, 'in-flight'), num(p.archived, 'archived'),
  ]);
  const total = (g.partitions ?? []).reduce((n, p) => n + (p.lag ?? 0n), 0n);
  const body = `<p>State <b id="share-group-state">${esc(g.state)}</b> · group epoch <span id="share-group-epoch">${esc(g.groupEpoch)}</span>`
    + ` · assignment epoch ${esc(g.assignmentEpoch)} · assignor ${esc(g.assignorName || '—')}`
    + ` · ${esc(g.members.length)} members · total lag <b id="share-group-lag">${esc(total)}</b></p>`
    + `<h2>Members</h2>${table(['Member', 'Client id', 'Host', 'Rack', 'Epoch', 'Subscribed', 'Assignment'], members, { id: 'share-members', empty: 'No members.' })}`
    + `<h2>Share-partitions</h2>${table(['Topic', 'Partition', 'Start offset', 'Lag', 'In flight', 'Archived'], parts, { id: 'share-partitions', empty: g.partitions === null ? 'The share-partitions could not be read.' : 'No share-partitions yet.' })}`
    + '<p class="muted">Start offset: the first record not yet acknowledged or archived. In flight: delivered and not yet acknowledged, released or archived;'
    + ' archived: past the delivery limit or rejected (both above the start offset, from the persisted state; — where it could not be read).</p>';
  sendHtml(ctx.res, 200, page(ctx, `Share group ${groupId}`, body, { section: '/share-groups' }));
}
