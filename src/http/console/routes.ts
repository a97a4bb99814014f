/**
 * The console's routes, one module per page:
 *
 *   GET  /                          cluster-page.ts   cluster, brokers, live chart
 *   GET  /topics                    topics-page.ts    list, create form       POST /topics
 *   GET  /topics/<t>                topics-page.ts    partitions, configs     POST /topics/<t>/config, /delete
 *   GET  /topics/<t>/messages       messages-page.ts  browser, produce form   POST /topics/<t>/produce
 *   GET  /groups, /groups/<g>       groups-page.ts    lag, members, reset     POST /groups/<g>/reset
 *   GET  /share-groups, /share-groups/<g>  share-groups-page.ts  members, share-partitions
 *   GET  /schema-registry, /schema-registry/<s>  schemas-page.ts  subjects; versions, schema, diff
 *   GET  /console/app.js, live.json live.ts           the live chart
 *
 * Path segments arrive decoded (server.ts); a group id or a subject may contain '/', so /groups/<g>,
 * /share-groups/<g> and /schema-registry/<s> take the rest of the path when the last segment is
 * not an action.
 */
import type { HttpContext } from '../context.js';
import { BadRequest } from '../context.js';
import { clusterPage } from './cluster-page.js';
import { shareGroupPage, shareGroupsPage } from './share-groups-page.js';
import { createTopicPost, topicConfigPost, topicDeletePost, topicPage, topicsPage } from './topics-page.js';
import { messagesPage, producePost } from './messages-page.js';
import { groupPage, groupResetPost, groupsPage } from './groups-page.js';
import { appJs, liveJson } from './live.js';
import { schemasPage, subjectPage } from './schemas-page.js';

export async function consoleRoute(ctx: HttpContext): Promise<void> {
  const s = ctx.segments;
  const get = ctx.method !== 'POST';
  const [first] = s;
  if (s.length === 0 && get) return clusterPage(ctx);
  if (first === 'console' && s.length === 2 && get) {
    if (s[1] === 'app.js') return appJs(ctx);
    if (s[1] === 'live.json') return liveJson(ctx);
  }
  if (first === 'schema-registry' && get) return s.length === 1 ? schemasPage(ctx) : subjectPage(ctx, s.slice(1).join('/'));
  if (first === 'share-groups' && get) return s.length === 1 ? shareGroupsPage(ctx) : shareGroupPage(ctx, s.slice(1).join('/'));
  if (first === 'topics') {
    if (s.length === 1) return get ? topicsPage(ctx) : createTopicPost(ctx);
    const topic = s[1];
    if (s.length === 2 && get) return topicPage(ctx, topic);
    if (s.length === 3) {
      if (s[2] === 'messages' && get) return messagesPage(ctx, topic);
      if (!get && s[2] === 'produce') return producePost(ctx, topic);
      if (!get && s[2] === 'config') return topicConfigPost(ctx, topic);
      if (!get && s[2] === 'delete') return topicDeletePost(ctx, topic);
    }
  }
  if (first === 'groups') {
    if (s.length === 1 && get) return groupsPage(ctx);
    if (!get && s.length >= 3 && s[s.length - 1] === 'reset') return groupResetPost(ctx, s.slice(1, -1).join('/'));
    if (get && s.length >= 2) return groupPage(ctx, s.slice(1).join('/'));
  }
  throw new BadRequest(get ? 404 : 405, `not found: /${s.join('/')}`);
}
