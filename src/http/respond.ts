/** Writing HTTP answers with the headers every response of the listener carries. */
import type { ServerResponse } from 'node:http';

/**
 * Pages use no external assets: styles inline, the one script from this listener. Forms post
 * back to it only; nothing may frame the console.
 */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function common(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'same-origin');
}

export function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  common(res);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, body: string): void {
  send(res, status, 'text/plain; charset=utf-8', body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  send(res, status, 'text/html; charset=utf-8', html);
}

/** 303 See Other: after a form post the browser loads `location` with GET. */
export function redirect(res: ServerResponse, location: string): void {
  common(res);
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Content-Length', 0);
  res.end();
}
