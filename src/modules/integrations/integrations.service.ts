import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { authorize } from '../shared/access.ts';
import { complete, INTEGRATION_NAMES, type IntegrationName } from './connector.ts';
import { CONNECTORS } from './connectors.ts';
import { credentialsOf, requireComplete } from './credentials.ts';
import type { CrmPusher } from './crm-push.ts';
import { findProjectSettings, findStates, recordFailure, recordSuccess, type StateRow } from './integrations.repo.ts';
import type { IntegrationState } from './integrations.schemas.ts';
import { scrub, VendorError } from './vendor-http.ts';

/** A project's integrations: their state (anyone on the team) and a connection test (owner, administrators, editors). */
export class IntegrationsService {
  constructor(
    private readonly ctx: Ctx,
    private readonly pusher: CrmPusher,
  ) {}

  async list(principal: Principal, projectId: string): Promise<IntegrationState[]> {
    const project = authorize(principal, await findProjectSettings(this.ctx.db.kysely, projectId), 'read').row;
    const states = new Map((await findStates(this.ctx.db.kysely, projectId)).map((s) => [s.name, s]));
    return INTEGRATION_NAMES.map((name) => this.#state(name, project, states.get(name)));
  }

  /** Calls the vendor with the project's credentials; the outcome is the integration's state either way. */
  async test(principal: Principal, projectId: string, name: IntegrationName): Promise<IntegrationState> {
    const db = this.ctx.db.kysely;
    const project = authorize(principal, await findProjectSettings(db, projectId), 'edit').row;
    const connector = CONNECTORS[name];
    const creds = credentialsOf(connector, project, this.ctx.secrets);
    requireComplete(connector, creds);
    if (!connector.test) throw ERRORS.conflict(`${connector.label}'s connection test is not available yet`);
    const at = () => new Date(this.ctx.clock.now());
    try {
      await connector.test(creds, this.pusher.vendorDeps);
    } catch (err) {
      if (!(err instanceof VendorError)) throw err;
      const words = scrub(err.message, Object.values(creds));
      await recordFailure(db, projectId, name, words, at(), err.status === 429);
      const state = await this.#reread(projectId, name, project);
      throw ERRORS.upstreamFailed(words, { extra: { integration: state } });
    }
    await recordSuccess(db, projectId, name, at());
    return this.#reread(projectId, name, project);
  }

  async #reread(projectId: string, name: IntegrationName, project: { data: unknown; secrets: unknown }) {
    const row = (await findStates(this.ctx.db.kysely, projectId)).find((s) => s.name === name);
    if (!row) throw notFound('Integration');
    return this.#state(name, project, row);
  }

  #state(name: IntegrationName, project: { data: unknown; secrets: unknown }, row: StateRow | undefined): IntegrationState {
    const connector = CONNECTORS[name];
    return {
      name,
      label: connector.label,
      fields: [...connector.fields],
      complete: complete(connector, credentialsOf(connector, project, this.ctx.secrets)),
      crm: connector.crm !== undefined,
      testable: connector.test !== undefined,
      connected: row?.connected ?? false,
      ...(row?.last_success_at ? { lastSuccessAt: row.last_success_at.toISOString() } : {}),
      ...(row?.last_error ? { lastError: row.last_error } : {}),
      ...(row?.last_error_at ? { lastErrorAt: row.last_error_at.toISOString() } : {}),
    };
  }
}
