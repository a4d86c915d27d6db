import type { Ctx } from '../../context.ts';
import { hashToken, type Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { newApiTokenSecret } from '../../lib/api-token.ts';
import { countApiTokens, deleteApiToken, insertApiToken, listApiTokens, lockUser, toApiToken } from './tokens.repo.ts';
import { MAX_API_TOKENS, type ApiToken, type CreateApiTokenBody, type CreatedApiToken } from './tokens.schemas.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

const DAY_MS = 86_400_000;

/** The caller's API tokens: made, listed and revoked by the user they act as. */
export class ApiTokenService {
  constructor(private readonly ctx: Ctx) {}

  /** A new token; its secret is in this answer only. 409 past MAX_API_TOKENS. */
  async create(principal: Principal, body: CreateApiTokenBody): Promise<CreatedApiToken> {
    requireSession(principal);
    const now = this.ctx.clock.now();
    const token = newApiTokenSecret();
    const row = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      if (!(await lockUser(trx, principal.id))) throw ERRORS.unauthorized('The user no longer exists');
      if ((await countApiTokens(trx, principal.id)) >= MAX_API_TOKENS) {
        throw ERRORS.conflict(`A user may hold at most ${MAX_API_TOKENS} API tokens; delete one first`);
      }
      const inserted = await insertApiToken(trx, {
        id: newObjectId(now),
        userId: principal.id,
        name: body.name,
        scope: body.scope,
        tokenHash: hashToken(token),
        createdAt: new Date(now),
        expiresAt: body.expiresInDays === undefined ? null : new Date(now + body.expiresInDays * DAY_MS),
      });
      await recordAudit(trx, {
        actor: principal,
        action: 'api_token_created',
        subjectId: inserted.id,
        detail: auditDetail(inserted),
        at: new Date(this.ctx.clock.now()),
      });
      return inserted;
    });
    return { ...toApiToken(row), token };
  }

  async list(principal: Principal): Promise<ApiToken[]> {
    return (await listApiTokens(this.ctx.db.kysely, principal.id)).map(toApiToken);
  }

  /** Deletes the row: the next request with the token, on any node, finds nothing. */
  async revoke(principal: Principal, id: string): Promise<void> {
    requireSession(principal);
    await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const row = await deleteApiToken(trx, principal.id, id);
      if (!row) throw notFound('API token');
      await recordAudit(trx, {
        actor: principal,
        action: 'api_token_revoked',
        subjectId: row.id,
        detail: auditDetail(row),
        at: new Date(this.ctx.clock.now()),
      });
    });
  }
}

const auditDetail = (row: { id: string; name: string; scope: string }) => ({ tokenId: row.id, name: row.name, scope: row.scope });

/** Tokens are managed from a login, never by a token: a leaked token cannot mint more or outlive its own revocation. */
function requireSession(principal: Principal) {
  if (principal.apiToken) throw ERRORS.forbidden('API tokens are created and revoked from a signed-in session, not with an API token');
}
