/** ACL API handlers (security/authorizer.ts decides; the ACLs live in the cluster metadata). */
import type { Handler } from '../handler.js';
import { describeAclsHandler } from './029-describe-acls.js';
import { createAclsHandler } from './030-create-acls.js';
import { deleteAclsHandler } from './031-delete-acls.js';

export const aclHandlers: Handler<any>[] = [describeAclsHandler, createAclsHandler, deleteAclsHandler];
