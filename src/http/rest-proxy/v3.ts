/** Confluent's REST Proxy v3 API (routes.ts): to be written. */
import { RestProxyError, type RestProxyRequest } from './routes.js';

export async function v3Route(_r: RestProxyRequest): Promise<void> {
  throw new RestProxyError(404, 404, 'HTTP 404 Not Found');
}
