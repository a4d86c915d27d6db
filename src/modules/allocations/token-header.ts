import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';

/** The header that carries an opened allocation's token on a project's public routes. */
export const AllocationTokenHeader = Type.String({
  maxLength: 2048,
  description: "A token from POST /public/allocations/open: the request acts for that realtor's allocation (401 when it has expired or was revoked)",
});

/** The allocation token a request carries, if any. */
export function allocationToken(request: FastifyRequest): string | undefined {
  const value = request.headers['x-allocation-token'];
  return typeof value === 'string' ? value : undefined;
}
