import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

/** The project a bookings address names (drafts included: Cal.com books visits whatever the page shows), with its sealed secrets. */
export function findBookingProject(db: Q, namespace: string) {
  return db.selectFrom('projects').select(['id', 'name', 'data', 'secrets']).where('namespace', '=', namespace).executeTakeFirst();
}

/**
 * Claims a booking's uid for the project: true for the first delivery that names it, false when it was seen before (a
 * retried delivery). A second delivery arriving meanwhile waits on the key until the first commits, then finds it.
 */
export async function claimBooking(db: Q, projectId: string, uid: string, at: Date): Promise<boolean> {
  const row = await db
    .insertInto('cal_bookings')
    .values({ project_id: projectId, uid, created_at: at })
    .onConflict((oc) => oc.columns(['project_id', 'uid']).doNothing())
    .returning('uid')
    .executeTakeFirst();
  return row !== undefined;
}

/** The lead a claimed booking made (or, rescheduled, moved). */
export async function linkBooking(db: Q, projectId: string, uid: string, leadId: string): Promise<void> {
  await db.updateTable('cal_bookings').set({ lead_id: leadId }).where('project_id', '=', projectId).where('uid', '=', uid).execute();
}

/** A booking seen before: its lead (null once the lead was erased), or undefined when the uid is new here. */
export function findBooking(db: Q, projectId: string, uid: string): Promise<{ lead_id: string | null } | undefined> {
  return db.selectFrom('cal_bookings').select('lead_id').where('project_id', '=', projectId).where('uid', '=', uid).executeTakeFirst();
}

/** Whether `unitId` is a unit of the project (a booking's metadata names it as the page sent it). */
export async function isProjectUnit(db: Q, projectId: string, unitId: string): Promise<boolean> {
  if (!/^[0-9a-f]{24}$/.test(unitId)) return false;
  return (await db.selectFrom('units').select('id').where('id', '=', unitId).where('project_id', '=', projectId).executeTakeFirst()) !== undefined;
}
