/** Listener strings (`listeners`, `advertised.listeners`, `listener.security.protocol.map`). */

/** The broker settings the listeners are read from. */
export interface ListenerSettings {
  readonly listeners: string;
  readonly 'advertised.listeners': string | null;
  readonly 'listener.security.protocol.map': string;
  readonly 'controller.listener.names': string | null;
}

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;

// ---------------------------------------------------------------------------------------------
// Listeners

export interface Listener {
  /** Listener name, upper-cased as Kafka normalises it (PLAINTEXT, INTERNAL, ...). */
  name: string;
  /** Host as written; '' means all interfaces. IPv6 addresses are given without brackets. */
  host: string;
  /** 0 means "pick a free port". */
  port: number;
}

export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

/**
 * Parses `NAME://host:port[,NAME://host:port...]`. Host may be empty, a name, an IPv4 address or a
 * bracketed IPv6 address. Listener names must be unique, and so must non-zero ports.
 */
export function parseListeners(text: string): Listener[] {
  const out: Listener[] = [];
  const trimmed = text.trim();
  if (trimmed === '') return out;
  for (const part of trimmed.split(',').map((s) => s.trim())) {
    const m = /^([A-Za-z0-9_]+):\/\/(?:\[([0-9A-Fa-f:.%a-zA-Z]*)\]|([A-Za-z0-9\-._]*)):(\d+)$/.exec(part);
    if (!m) throw new Error(`Unable to parse ${part} to a listener: expected NAME://host:port`);
    const port = Number(m[4]);
    if (port > 65535) throw new Error(`Invalid port ${port} in listener ${part}`);
    const l: Listener = { name: m[1]!.toUpperCase(), host: m[2] ?? m[3] ?? '', port };
    if (out.some((o) => o.name === l.name)) throw new Error(`Each listener must have a different name, found ${l.name} twice`);
    if (port !== 0 && out.some((o) => o.port === port)) throw new Error(`Each listener must have a different port, found ${port} twice`);
    out.push(l);
  }
  return out;
}

/** Parses `listener.security.protocol.map` (NAME:PROTOCOL,...) into a Map keyed by upper-cased listener name. */
export function parseSecurityProtocolMap(text: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  const trimmed = text.trim();
  if (trimmed === '') return map;
  for (const part of trimmed.split(',').map((s) => s.trim())) {
    const m = /^([A-Za-z0-9_]+)\s*:\s*([A-Za-z_]+)$/.exec(part);
    if (!m) throw new Error(`Unable to parse '${part}' as NAME:SECURITY_PROTOCOL`);
    const proto = m[2]!.toUpperCase();
    if (!(SECURITY_PROTOCOLS as readonly string[]).includes(proto)) {
      throw new Error(`Unknown security protocol ${m[2]} (expected one of ${SECURITY_PROTOCOLS.join(', ')})`);
    }
    map.set(m[1]!.toUpperCase(), proto as SecurityProtocol);
  }
  return map;
}

/** The security protocol of a listener name under this config (null when not mapped). */
export function listenerSecurityProtocol(config: ListenerSettings, listenerName: string): SecurityProtocol | null {
  const name = listenerName.toUpperCase();
  const map = parseSecurityProtocolMap(config['listener.security.protocol.map']);
  const p = map.get(name);
  if (p) return p;
  return (SECURITY_PROTOCOLS as readonly string[]).includes(name) ? (name as SecurityProtocol) : null;
}

function controllerListenerNames(config: ListenerSettings): Set<string> {
  const v = config['controller.listener.names'];
  return new Set(v === null ? [] : v.split(',').map((s) => s.trim().toUpperCase()).filter((s) => s !== ''));
}

/** The listeners the broker opens for clients: `listeners` minus the controller listeners. */
export function brokerListeners(config: ListenerSettings): Listener[] {
  const controllers = controllerListenerNames(config);
  return parseListeners(config.listeners).filter((l) => !controllers.has(l.name));
}

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The listeners given to clients in Metadata/FindCoordinator: `advertised.listeners` when set,
 * otherwise the broker listeners. An empty or wildcard host becomes `localhost`. A port of 0 is
 * replaced by the port actually bound for that listener when `boundPorts` (listener name → port)
 * has it, so tests on port 0 advertise the real port.
 */
export function advertisedListeners(config: ListenerSettings, boundPorts?: ReadonlyMap<string, number>): Listener[] {
  const controllers = controllerListenerNames(config);
  const adv = config['advertised.listeners'];
  const base = adv === null ? brokerListeners(config) : parseListeners(adv).filter((l) => !controllers.has(l.name));
  return base.map((l) => ({
    name: l.name,
    host: WILDCARD_HOSTS.has(l.host) ? 'localhost' : l.host,
    port: l.port === 0 ? boundPorts?.get(l.name) ?? 0 : l.port,
  }));
}

