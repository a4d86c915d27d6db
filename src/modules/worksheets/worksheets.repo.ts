import { sql, type Kysely, type Selectable } from 'kysely';
import { KEYED_LOCKS } from '../../db/locks.ts';
import type { Database, WorksheetsTable } from '../../db/schema.ts';
import { returning, versionedUpdate } from '../../db/versioned.repo.ts';
import { windowTotal } from '../shared/list.ts';

type Q = Kysely<Database>;
export type WorksheetRow = Selectable<WorksheetsTable>;

const COLUMNS = [
  'id',
  'project_id',
  'allocation',
  'buyer',
  'choices',
  'notes',
  'status',
  'unit_id',
  'realtor_email',
  'version',
  'created_at',
  'updated_at',
] as const;

export function toWorksheet(row: WorksheetRow) {
  return {
    _id: row.id,
    __v: row.version,
    project: row.project_id,
    status: row.status as 'submitted' | 'accepted' | 'declined',
    allocation: row.allocation,
    buyer: row.buyer as { firstName: string; lastName: string; email: string; phone: string },
    choices: row.choices,
    ...(row.notes !== null ? { notes: row.notes } : {}),
    ...(row.unit_id !== null ? { unit: row.unit_id } : {}),
    ...(row.realtor_email !== null ? { realtorEmail: row.realtor_email } : {}),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** Until the transaction ends, one allocation's worksheets are counted and submitted one at a time. */
export async function lockAllocationWorksheets(db: Q, projectId: string, allocation: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${KEYED_LOCKS.allocationWorksheets}, hashtext(${projectId + ':' + allocation}))`.execute(db);
}

/** How many of an allocation's worksheets wait for the sales team. */
export async function countPendingWorksheets(db: Q, projectId: string, allocation: string): Promise<number> {
  const row = await db
    .selectFrom('worksheets')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('project_id', '=', projectId)
    .where('allocation', '=', allocation)
    .where('status', '=', 'submitted')
    .executeTakeFirstOrThrow();
  return row.n;
}

/** How many of `ids` are units of the project. */
export async function countProjectUnits(db: Q, projectId: string, ids: string[]): Promise<number> {
  const row = await db
    .selectFrom('units')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .executeTakeFirstOrThrow();
  return row.n;
}

export function insertWorksheet(
  db: Q,
  w: {
    id: string;
    projectId: string;
    allocation: string;
    buyer: object;
    choices: string[];
    notes: string | undefined;
    realtorEmail: string | undefined;
    now: Date;
  },
): Promise<WorksheetRow> {
  return db
    .insertInto('worksheets')
    .values({
      id: w.id,
      project_id: w.projectId,
      allocation: w.allocation,
      buyer: JSON.stringify(w.buyer),
      choices: w.choices,
      notes: w.notes ?? null,
      realtor_email: w.realtorEmail ?? null,
      created_at: w.now,
      updated_at: w.now,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** A project's worksheets, oldest first, one page, each row with the count before paging. */
export function listWorksheets(db: Q, projectId: string, page: { skip: number; limit: number; status?: string | undefined }) {
  let q = db
    .selectFrom('worksheets')
    .select([...COLUMNS, windowTotal])
    .where('project_id', '=', projectId);
  if (page.status) q = q.where('status', '=', page.status);
  return q.orderBy('created_at').orderBy('id').offset(page.skip).limit(page.limit).execute();
}

/** A worksheet with its project's membership, for the access check. */
export function findWorksheet(db: Q, id: string) {
  return db
    .selectFrom('worksheets as w')
    .innerJoin('projects as p', 'p.id', 'w.project_id')
    .select(['w.id', 'w.project_id', 'w.allocation', 'w.status', 'w.choices', 'w.version', 'p.user_id', 'p.administrators', 'p.editors'])
    .where('w.id', '=', id)
    .executeTakeFirst();
}

/** Decides a submitted worksheet; undefined when it was decided already (by a concurrent request too). */
export function decideWorksheet(db: Q, id: string, status: 'accepted' | 'declined', unitId: string | null, now: Date): Promise<WorksheetRow | undefined> {
  return versionedUpdate(
    db,
    'worksheets',
    id,
    { status, unit_id: unitId },
    { at: now, where: sql<boolean>`status = 'submitted'`, returning: returning<WorksheetRow>(COLUMNS) },
  );
}

export async function deleteWorksheets(db: Q, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const result = await db.deleteFrom('worksheets').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A worksheet as the CRMs are sent it: the record, and the names of its chosen units in the buyer's order. */
export function findWorksheetToPush(db: Q, id: string) {
  return db
    .selectFrom('worksheets as w')
    .select(COLUMNS.map((c) => `w.${c}` as const))
    .select(
      sql<
        string[]
      >`array(select u.name from unnest(w.choices) with ordinality as c(id, n) join units u on u.id = c.id and u.project_id = w.project_id order by c.n)`.as(
        'choice_names',
      ),
    )
    .where('w.id', '=', id)
    .executeTakeFirst();
}
