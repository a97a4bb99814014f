/**
 * The live chart: /console/live.json (totals now: records in and out, and consumer-group lag,
 * optionally of one group) and /console/app.js, which polls it every 2 s and draws the rates and
 * the lag of the last two minutes as SVG polylines into every `svg.chart[data-live]` of the page.
 * The only script of the console; pages show their figures without it.
 */
import type { HttpContext } from '../context.js';
import { send, sendJson } from '../respond.js';
import { groupLag } from '../group-lag.js';
import { esc } from './layout.js';

export async function liveJson(ctx: HttpContext): Promise<void> {
  let messagesIn = 0;
  let messagesOut = 0;
  for (const t of ctx.broker.metrics.topics.values()) {
    messagesIn += t.messagesIn;
    messagesOut += t.messagesOut;
  }
  const only = ctx.query.get('group');
  let lag = 0;
  for (const g of await groupLag(ctx.broker)) {
    if (only !== null && g.groupId !== only) continue;
    for (const p of g.partitions) lag += p.lag ?? 0;
  }
  sendJson(ctx.res, 200, { timeMs: Date.now(), messagesIn, messagesOut, lag });
}

const APP_JS = `'use strict';
(function () {
  var charts = document.querySelectorAll('svg.chart[data-live]');
  if (!charts.length) return;
  var NS = 'http://www.w3.org/2000/svg';
  var points = [];
  var last = null;
  function line(svg, cls, color) {
    var p = svg.querySelector('polyline.' + cls);
    if (!p) { p = document.createElementNS(NS, 'polyline'); p.setAttribute('class', cls); p.setAttribute('fill', 'none');
      p.setAttribute('stroke', color); p.setAttribute('stroke-width', '2'); svg.appendChild(p); }
    return p;
  }
  function draw() {
    charts.forEach(function (svg) {
      var w = Number(svg.getAttribute('width')), h = Number(svg.getAttribute('height'));
      var max = 1;
      points.forEach(function (p) { max = Math.max(max, p.inRate, p.outRate, p.lag); });
      function path(key) {
        return points.map(function (p, i) {
          var x = points.length < 2 ? 0 : (i * (w - 4)) / (points.length - 1) + 2;
          return x.toFixed(1) + ',' + (h - 4 - (p[key] / max) * (h - 8)).toFixed(1);
        }).join(' ');
      }
      line(svg, 'in', '#2b6cb0').setAttribute('points', path('inRate'));
      line(svg, 'out', '#2f855a').setAttribute('points', path('outRate'));
      line(svg, 'lag', '#c05621').setAttribute('points', path('lag'));
      var cur = points[points.length - 1];
      var label = svg.parentNode.querySelector('.live-figures');
      if (label && cur) label.textContent = 'in ' + cur.inRate.toFixed(1) + '/s · out ' + cur.outRate.toFixed(1) + '/s · lag ' + cur.lag + ' · max ' + max.toFixed(0);
    });
  }
  function poll() {
    var group = charts[0].getAttribute('data-group');
    fetch('/console/live.json' + (group ? '?group=' + encodeURIComponent(group) : ''), { credentials: 'same-origin' })
      .then(function (r) { return r.json(); })
      .then(function (d) {
        if (last) {
          var s = Math.max(0.001, (d.timeMs - last.timeMs) / 1000);
          points.push({ inRate: Math.max(0, d.messagesIn - last.messagesIn) / s, outRate: Math.max(0, d.messagesOut - last.messagesOut) / s, lag: d.lag });
          if (points.length > 60) points.shift();
        } else {
          points.push({ inRate: 0, outRate: 0, lag: d.lag });
        }
        last = d;
        draw();
        charts.forEach(function (svg) { svg.setAttribute('data-samples', String(points.length)); });
      })
      .catch(function () {})
      .then(function () { setTimeout(poll, Number(charts[0].getAttribute('data-interval-ms')) || 2000); });
  }
  poll();
})();
`;

export function appJs(ctx: HttpContext): void {
  send(ctx.res, 200, 'text/javascript; charset=utf-8', APP_JS);
}

/** The chart's markup (drawn by app.js; without JavaScript the page's own figures stand). */
export function liveChart(opts: { group?: string } = {}): string {
  const group = opts.group !== undefined ? ` data-group="${esc(opts.group)}"` : '';
  return `<div class="live"><svg class="chart" data-live="1"${group} width="640" height="160" viewBox="0 0 640 160" role="img" aria-label="records in and out per second, and consumer lag"></svg>`
    + `<div class="legend"><span style="color:#2b6cb0">━ records in/s</span><span style="color:#2f855a">━ records out/s</span><span style="color:#c05621">━ lag</span> <span class="live-figures muted"></span></div>`
    + `<noscript><p class="muted">The live chart needs JavaScript; the figures above are current as of this page load.</p></noscript></div>`;
}
