/**
 * Samsa's HTTP listener (metrics, health, console) and log format settings, merged into
 * BROKER_SETTINGS (see src/http/ and src/logger.ts).
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

function checkHttpListeners(value: never): string | null {
  for (const l of value as unknown as string[]) {
    const m = /^(https?):\/\/(\[[0-9a-fA-F:.]+\]|[^:/\s]*):(\d{1,5})\/?$/.exec(l.trim());
    if (!m) return `'${l}' is not an HTTP listener (http://host:port or https://host:port)`;
    if (Number(m[3]) > 65535) return `'${l}': port out of range`;
  }
  return null;
}

export const HTTP_SETTINGS = {
  'samsa.http.listeners': {
    type: 'list', default: 'http://127.0.0.1:9644', check: checkHttpListeners,
    doc: 'Samsa only: where the HTTP listener serves /metrics (Prometheus), /health/live, /health/ready and the web console (comma-separated http://host:port or https://host:port; port 0 picks a free one; empty turns it off). https uses the broker\'s ssl.keystore.* settings (listener.name.http.* overrides them). With SASL on the broker, requests need basic authentication as a SASL PLAIN or SCRAM user.',
  },
  'samsa.http.console.enable': {
    type: 'boolean', default: 'true',
    doc: 'Samsa only: whether the HTTP listener serves the web console at / (metrics and health are always served).',
  },
  'samsa.rest.proxy.enable': {
    type: 'boolean', default: 'true',
    doc: 'Samsa only: whether the HTTP listener serves Confluent\'s REST Proxy API (v3 at /v3/clusters/..., v2 produce at /topics/{t} and consumer instances at /consumers/...), in-process as the HTTP user.',
  },
  'samsa.log.format': {
    type: 'string', default: 'text', oneOf: ['text', 'json'],
    doc: 'Samsa only: text lines, or json for one JSON object per line (time, level, logger, message and fields).',
  },
} as const satisfies Record<string, SettingSpec>;

/** The http settings, typed (what the room that reads them takes). */
export type HttpSettings = SettingsOf<typeof HTTP_SETTINGS>;
