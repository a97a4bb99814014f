/** The console's pages, one module per page (see ../server.ts for what reaches here). */
import type { HttpContext } from '../server.js';
import { BadRequest } from '../server.js';

export async function consoleRoute(ctx: HttpContext): Promise<void> {
  throw new BadRequest(404, `not found: /${ctx.segments.join('/')}`);
}
