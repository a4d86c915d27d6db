import type { Ctx } from '../../context.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { credentialsOf, requireComplete } from '../integrations/credentials.ts';
import { recordFailure, recordSuccess } from '../integrations/integrations.repo.ts';
import { rentcafe, rentcafeAvailability, rentcafeRows } from '../integrations/rentcafe.ts';
import { scrub, VendorError } from '../integrations/vendor-http.ts';
import type { ProjectRow } from '../projects/projects.record.ts';
import { jsonTable, type ParsedTable } from './csv.ts';
import { tooManyRows } from './import.bounds.ts';
import type { RowError } from './import.plan.ts';

type Table = Pick<ParsedTable, 'headers' | 'rows'>;
/** Records a failed sync (none for a dry run) and answers its id. */
type FailedSync = (summary: Record<string, unknown>, errors: unknown[]) => Promise<string | undefined>;

/**
 * RENTCafé's apartments of the project as an import table (Name, Status, Price; see rentcafeRows), the integration's
 * state written either way. A call that fails records a failed sync (`failed`) and throws 502 `upstream_failed` in
 * words (`reason`: unreachable, refused or rate_limited); credentials not all set → 409, and nothing is called.
 */
export async function rentcafeTable(ctx: Ctx, project: ProjectRow, failed: FailedSync): Promise<Table> {
  const creds = credentialsOf(rentcafe, project, ctx.secrets);
  requireComplete(rentcafe, creds);
  const db = ctx.db.kysely;
  const at = () => new Date(ctx.clock.now());
  let apartments;
  try {
    apartments = await rentcafeAvailability(creds, ctx.crm.vendorDeps);
  } catch (err) {
    if (!(err instanceof VendorError)) throw err;
    const words = scrub(err.message, Object.values(creds));
    const reason = err.status === undefined ? 'unreachable' : err.status === 429 ? 'rate_limited' : 'refused';
    await recordFailure(db, project.id, rentcafe.name, words, at(), err.status === 429);
    const sync = await failed({ reason }, [{ row: null, column: null, message: words }]);
    throw ERRORS.upstreamFailed(words, {
      ...(err.retryAfterSec && err.status === 429 ? { headers: { 'Retry-After': String(err.retryAfterSec) } } : {}),
      extra: { reason, ...(sync ? { sync } : {}) },
    });
  }
  await recordSuccess(db, project.id, rentcafe.name, at());
  const { maxRows } = ctx.config.inventory;
  if (apartments.length > maxRows) {
    const tooMany = tooManyRows(maxRows);
    await failed({ reason: 'too_many_rows' }, [{ row: null, column: null, message: tooMany.detail }]);
    throw tooMany;
  }
  return jsonTable(rentcafeRows(apartments, project.data.yiStatusMapping));
}

/** RENTCafé answered, but its rows could not be applied: the integration's last error says why (still connected). */
export async function rentcafeRejected(ctx: Ctx, projectId: string, errors: readonly RowError[]): Promise<void> {
  const first = errors[0];
  const words = `${errors.length} apartment${errors.length === 1 ? '' : 's'} from RENTCafé could not be applied, so nothing changed${
    first ? `: row ${first.row}${first.column ? ` (${first.column})` : ''} ${first.message}` : ''
  }`;
  await recordFailure(ctx.db.kysely, projectId, rentcafe.name, words, new Date(ctx.clock.now()), true);
}
