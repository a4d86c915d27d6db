import { sql, type RawBuilder } from 'kysely';
import type { Config } from '../../config.ts';
import { LinkSigner } from '../../lib/signed-link.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/**
 * Drafts: a project whose `published` is false is not public. Its bundle, page, live feed, forms and holds answer
 * 404 as if it did not exist, and group pages leave it out; its team opens it through a signed preview link
 * (GET /projects/{id}/preview-link), valid for PREVIEW_HOURS. `published` absent means published, so projects made
 * before drafts (and through the API) stay public.
 */

export const PREVIEW_HOURS = 24;

/** Whether a project's settings (`data`) make it public. */
export const isPublished = (data: Record<string, unknown>) => data.published !== false;

/** The same, in SQL, for the projects row `alias`. */
export const publishedSql = (alias: string): RawBuilder<boolean> => sql<boolean>`(${sql.ref(`${alias}.data`)}->'published') is distinct from 'false'::jsonb`;

/** Signs and checks preview tokens (the project id is what is signed, so a renamed namespace keeps its links). */
export const previewSigner = (config: Pick<Config, 'secretKey' | 'previousSecretKey'>) =>
  new LinkSigner(config.secretKey, 'project-preview', config.previousSecretKey);

/** Whether a request may see this project: published, or a draft opened with a good preview token. */
export function visible(signer: LinkSigner, project: { id: string; data: Record<string, unknown> }, token: string | undefined, now: number) {
  return isPublished(project.data) || signer.verify(project.id, token, now);
}

/** The `preview` query parameter of every public route keyed by a project. */
export const PREVIEW_PARAM = {
  type: 'string',
  maxLength: 100,
  description: "A draft's preview token (from GET /projects/{id}/preview-link): opens an unpublished project until it expires",
} as const;

/**
 * The preview link of a project: its page on the pages origin (or on its own host name when it has no namespace)
 * with a token good for PREVIEW_HOURS. A project with neither has no page to open: 409.
 */
export function previewLink(
  config: Pick<Config, 'secretKey' | 'previousSecretKey' | 'pagesUrl'>,
  project: { id: string; namespace: string | null; host_name: string | null },
  now: number,
): { url: string; expiresAt: string } {
  const expires = Math.floor((now + PREVIEW_HOURS * 3_600_000) / 1000) * 1000;
  const token = previewSigner(config).sign(project.id, expires);
  let page: string;
  if (project.namespace !== null) page = `${config.pagesUrl}/p/${encodeURIComponent(project.namespace)}`;
  else if (project.host_name !== null) page = `${new URL(config.pagesUrl).protocol}//${project.host_name}/`;
  else
    throw ERRORS.conflict('The project has no page to preview yet: give it a namespace (or a host name) first', {
      errors: [{ path: '/namespace', message: 'is not set' }],
    });
  return { url: `${page}?preview=${token}`, expiresAt: new Date(expires).toISOString() };
}
