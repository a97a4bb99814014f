/**
 * `/groups` (every consumer group this broker coordinates, classic and KIP-848: type, state,
 * members, lag; share groups have their own pages, share-groups-page.ts) and
 * `/groups/<id>` (members with their assignments, and member epochs in KIP-848 groups; committed
 * offset / high watermark / lag per partition, the live lag chart, and resetting the offsets of an
 * Empty group to the earliest, the latest or a time, as kafka-consumer-groups --reset-offsets does).
 */
import type { HttpContext } from '../context.js';
import { BadRequest } from '../context.js';
import { redirect, sendHtml } from '../respond.js';
import { esc, form, page, pathFor, query, table } from './layout.js';
import { describeGroupWithLag, groupLag, resetGroupOffsets } from '../group-lag.js';
import { liveChart } from './live.js';

export async function groupsPage(ctx: HttpContext): Promise<void> {
  const groups = await groupLag(ctx.broker);
  const rows = groups.map((g) => {
    const lag = g.partitions.reduce((n, p) => n + (p.lag ?? 0), 0);
    return [
      `<a href="${esc(pathFor('groups', g.groupId))}">${esc(g.groupId)}</a>`, esc(g.groupType || '—'), esc(g.state), esc(g.protocolType || '—'),
      `<span class="num">${esc(g.members)}</span>`, `<span class="num">${esc(g.partitions.length)}</span>`, `<span class="num lag">${esc(lag)}</span>`,
    ];
  });
  const body = table(['Group', 'Type', 'State', 'Protocol', 'Members', 'Partitions committed', 'Lag'], rows, { id: 'groups', empty: 'No consumer groups on this coordinator.' })
    + '<p class="muted">Groups whose coordinator is this broker (the leader of their __consumer_offsets partition).</p>';
  sendHtml(ctx.res, 200, page(ctx, 'Consumer groups', body, { section: '/groups' }));
}

export async function groupPage(ctx: HttpContext, groupId: string): Promise<void> {
  const g = await describeGroupWithLag(ctx.broker, groupId);
  if (!g) {
    // A share group's id under /groups (e.g. typed by hand): its own page.
    if (await ctx.broker.groupCoordinator.sharePartitionsOf(groupId).catch(() => null) !== null) return redirect(ctx.res, pathFor('share-groups', groupId));
    throw new BadRequest(404, `no group ${groupId} on this coordinator`);
  }
  const members = g.members.map((m) => [
    `<code>${esc(m.memberId)}</code>`, esc(m.groupInstanceId ?? '—'), esc(m.clientId), esc(m.clientHost), `<span class="num member-epoch">${esc(m.memberEpoch ?? '—')}</span>`,
    m.assignment === null ? '<span class="muted">(not a consumer assignment)</span>'
      : m.assignment.map((a) => `${esc(a.topic)}: ${esc(a.partitions.join(', '))}`).join('<br>') || '<span class="muted">nothing</span>',
  ]);
  const lagRows = g.summary.partitions.map((p) => [
    `<a href="${esc(pathFor('topics', p.topic))}">${esc(p.topic)}</a>`, `<span class="num">${esc(p.partition)}</span>`,
    `<span class="num committed">${esc(p.committed)}</span>`, `<span class="num">${esc(p.highWatermark ?? '—')}</span>`,
    `<span class="num">${esc(p.logEndOffset ?? '—')}</span>`, `<span class="num lag">${esc(p.lag ?? '—')}</span>`,
  ]);
  const total = g.summary.partitions.reduce((n, p) => n + (p.lag ?? 0), 0);
  const topics = [...new Set(g.summary.partitions.map((p) => p.topic))];
  const empty = g.summary.state === 'Empty';
  const reset = form(ctx, pathFor('groups', groupId, 'reset'), `<fieldset><legend>Reset offsets</legend>`
    + (empty ? '' : `<p class="muted">Only an Empty group's offsets can be reset: stop its consumers first (state now ${esc(g.summary.state)}).</p>`)
    + `<label>Topic <select name="topic" id="reset-topic"><option value="">all topics</option>${topics.map((t) => `<option>${esc(t)}</option>`).join('')}</select></label> `
    + `<label><input type="radio" name="to" value="earliest" id="reset-earliest" checked> earliest</label> `
    + `<label><input type="radio" name="to" value="latest" id="reset-latest"> latest</label> `
    + `<label><input type="radio" name="to" value="timestamp" id="reset-timestamp"> time</label> `
    + `<input name="timestamp" id="reset-time" placeholder="2026-01-01T00:00:00Z or ms"> `
    + `<button type="submit" id="reset-submit"${empty ? '' : ' disabled'}>Reset</button></fieldset>`, { id: 'reset' });
  const body = `<p>State <b id="group-state">${esc(g.summary.state)}</b> · <span id="group-type">${esc(g.summary.groupType)}</span> group`
    + ` · protocol ${esc(g.summary.protocolType || '—')}${g.protocol ? ` (${esc(g.protocol)})` : ''}`
    + (g.epochs ? ` · group epoch <span id="group-epoch">${esc(g.epochs.group)}</span> · assignment epoch ${esc(g.epochs.assignment)}` : '')
    + ` · ${esc(g.members.length)} members · total lag <b id="group-lag">${esc(total)}</b></p>`
    + `<h2>Members</h2>${table(['Member', 'Instance', 'Client id', 'Host', 'Member epoch', 'Assignment'], members, { id: 'members', empty: 'No members.' })}`
    + `<h2>Offsets and lag</h2>${table(['Topic', 'Partition', 'Committed', 'High watermark', 'Log end', 'Lag'], lagRows, { id: 'lag', empty: 'No committed offsets.' })}`
    + `<h2>Live lag</h2>${liveChart({ group: groupId })}${reset}`;
  sendHtml(ctx.res, 200, page(ctx, `Group ${groupId}`, body, { section: '/groups', script: true }));
}

export async function groupResetPost(ctx: HttpContext, groupId: string): Promise<void> {
  const f = ctx.form!;
  const back = (params: Record<string, string>) => redirect(ctx.res, pathFor('groups', groupId) + query(params));
  const kind = f.get('to');
  const topic = f.get('topic') || null;
  let to: { kind: 'earliest' | 'latest' } | { kind: 'timestamp'; timestampMs: number };
  if (kind === 'earliest' || kind === 'latest') to = { kind };
  else if (kind === 'timestamp') {
    const t = (f.get('timestamp') ?? '').trim();
    const ms = /^\d+$/.test(t) ? Number(t) : Date.parse(t);
    if (Number.isNaN(ms)) return back({ error: 'Reset: give the time as milliseconds since the epoch or an ISO date.' });
    to = { kind: 'timestamp', timestampMs: ms };
  } else {
    return back({ error: 'Reset: choose earliest, latest or a time.' });
  }
  try {
    const moved = await resetGroupOffsets(ctx.broker, groupId, to, topic);
    back({ notice: `Reset ${moved.length} partition(s): ${moved.map((m) => `${m.topic}-${m.partition} → ${m.offset}`).join(', ')}` });
  } catch (err) {
    back({ error: `Reset: ${(err as Error).message}` });
  }
}
