import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { createOnce, type CreateRequest } from '../shared/idempotent.ts';
import { etagOf, invalid, parseIfMatch, staleWrite } from '../shared/records.ts';
import { checkTarget, newWebhookSecret, RefusedTarget } from './send.ts';
import type { WebhookDispatcher } from './webhooks.dispatcher.ts';
import { deleteWebhook, findWebhook, insertWebhook, listDeliveries, listWebhooks, toDelivery, toWebhook, updateWebhook } from './webhooks.repo.ts';
import type { DeliveriesPage, WebhookCreate, WebhookPatch } from './webhooks.schemas.ts';

/** A project's webhooks, owner and administrators only: access first, then the statement. */
export class WebhookService {
  constructor(
    private readonly ctx: Ctx,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  list = async (principal: Principal, projectId: string) => {
    await this.#manage(principal, projectId);
    return (await listWebhooks(this.ctx.db.kysely, projectId)).map(toWebhook);
  };

  get = async (principal: Principal, projectId: string, hookId: string) => {
    await this.#manage(principal, projectId);
    const row = await this.#hook(projectId, hookId);
    return { record: toWebhook(row), etag: etagOf(row.version) };
  };

  /** The answer carries the signing secret, opened for the first answer and for a replay of it, never stored in it. */
  create = async (principal: Principal, projectId: string, input: WebhookCreate, req: CreateRequest) => {
    await this.#manage(principal, projectId);
    await this.#checkUrl(input.url);
    const { clock, secrets } = this.ctx;
    return createOnce(
      this.ctx.db.kysely,
      'webhooks',
      req,
      async (trx) => {
        const row = await insertWebhook(trx, {
          id: newObjectId(clock.now()),
          projectId,
          url: input.url,
          events: input.events,
          description: input.description ?? null,
          secret: secrets.seal(newWebhookSecret()),
        });
        return { record: toWebhook(row), version: row.version };
      },
      async (record) => ({ ...record, secret: secrets.open((await this.#hook(projectId, String(record._id))).secret) }),
    );
  };

  /** A stale If-Match → 412 before anything is checked or written, even when nothing would change. */
  update = async (principal: Principal, projectId: string, hookId: string, patch: WebhookPatch, ifMatch: string | undefined) => {
    await this.#manage(principal, projectId);
    const current = await this.#hook(projectId, hookId);
    const ifVersion = parseIfMatch(ifMatch, current.version);
    const { url, events, description } = patch;
    if (url !== undefined) await this.#checkUrl(url);
    const set = { ...(url !== undefined ? { url } : {}), ...(events !== undefined ? { events } : {}), ...(description !== undefined ? { description } : {}) };
    let row = current;
    if (Object.keys(set).length) {
      if (!(await updateWebhook(this.ctx.db.kysely, current.id, set, { at: this.ctx.clock.now(), ifVersion }))) throw staleWrite();
      row = await this.#hook(projectId, current.id);
    }
    return { record: toWebhook(row), etag: etagOf(row.version) };
  };

  remove = async (principal: Principal, projectId: string, hookId: string, ifMatch: string | undefined) => {
    await this.#manage(principal, projectId);
    const row = await this.#hook(projectId, hookId);
    if (!(await deleteWebhook(this.ctx.db.kysely, row.id, parseIfMatch(ifMatch, row.version)))) throw staleWrite();
  };

  deliveries = async (principal: Principal, projectId: string, hookId: string, page: DeliveriesPage) => {
    await this.#manage(principal, projectId);
    const row = await this.#hook(projectId, hookId);
    return (await listDeliveries(this.ctx.db.kysely, row.id, page)).map(toDelivery);
  };

  /** One more attempt now, whatever the delivery's state. */
  retry = async (principal: Principal, projectId: string, hookId: string, deliveryId: string) => {
    await this.#manage(principal, projectId);
    const row = await this.#hook(projectId, hookId);
    const delivery = (await listDeliveries(this.ctx.db.kysely, row.id, { limit: 1, id: deliveryId }))[0];
    if (!delivery) throw notFound('Delivery');
    await this.dispatcher.retryNow(delivery.id);
    return toDelivery(delivery);
  };

  async #manage(principal: Principal, projectId: string) {
    authorize(principal, await findProjectMembership(this.ctx.db.kysely, projectId), 'manage');
  }

  async #hook(projectId: string, hookId: string) {
    const row = await findWebhook(this.ctx.db.kysely, projectId, hookId);
    if (!row) throw notFound('Webhook');
    return row;
  }

  /** http(s) only, no credentials in it; every address the host resolves to must be public (unless allowed). */
  async #checkUrl(url: string) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return invalid([{ path: '/url', message: 'is not a URL' }]);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') invalid([{ path: '/url', message: 'must be http or https' }]);
    if (parsed.username || parsed.password) invalid([{ path: '/url', message: 'must not carry credentials' }]);
    try {
      await checkTarget(parsed, this.ctx.config.webhooks.allowPrivate);
    } catch (err) {
      if (err instanceof RefusedTarget) invalid([{ path: '/url', message: err.message }]);
      throw err;
    }
  }
}
