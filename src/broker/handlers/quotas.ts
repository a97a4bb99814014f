/** Client quota handlers (security/quotas.ts; the quotas live in the cluster metadata). */
import type { Handler } from '../handler.js';
import { describeClientQuotasHandler } from './048-describe-client-quotas.js';
import { alterClientQuotasHandler } from './049-alter-client-quotas.js';

export const quotaHandlers: Handler<any>[] = [describeClientQuotasHandler, alterClientQuotasHandler];
