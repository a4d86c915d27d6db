import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Q = Kysely<Database>;

export interface StateRow {
  name: string;
  connected: boolean;
  last_success_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

/** What an integration reads of its project: the fields (in `data`), the sealed secrets, the name and the team. */
export function findProjectSettings(db: Q, projectId: string) {
  return db
    .selectFrom('projects')
    .select(['id', 'name', 'data', 'secrets', 'user_id', 'administrators', 'editors'])
    .where('id', '=', projectId)
    .executeTakeFirst();
}

/** The project's integrations as last seen (those never used have no row). */
export function findStates(db: Q, projectId: string): Promise<StateRow[]> {
  return db
    .selectFrom('integration_states')
    .select(['name', 'connected', 'last_success_at', 'last_error', 'last_error_at'])
    .where('project_id', '=', projectId)
    .execute();
}

/** A call that worked: connected, and when. The last error is kept (with its time) until the next one. */
export async function recordSuccess(db: Q, projectId: string, name: string, at: Date): Promise<void> {
  await db
    .insertInto('integration_states')
    .values({ project_id: projectId, name, connected: true, last_success_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['project_id', 'name']).doUpdateSet({ connected: true, last_success_at: at, updated_at: at }))
    .execute();
}

/** A call that failed, in words; `connected` stays as it was when the failure says nothing of the connection (a 429). */
export async function recordFailure(db: Q, projectId: string, name: string, error: string, at: Date, keepConnected: boolean): Promise<void> {
  await db
    .insertInto('integration_states')
    .values({ project_id: projectId, name, connected: false, last_error: error, last_error_at: at, updated_at: at })
    .onConflict((oc) =>
      oc.columns(['project_id', 'name']).doUpdateSet({
        connected: keepConnected ? sql<boolean>`integration_states.connected` : false,
        last_error: error,
        last_error_at: at,
        updated_at: at,
      }),
    )
    .execute();
}

/** What a push is about: a lead, or a worksheet (pushed to the CRMs as a lead). */
export type PushSubject = { leadId: string } | { worksheetId: string };

const subjectIdOf = (s: PushSubject) => ('leadId' in s ? s.leadId : s.worksheetId);

/**
 * Claims the right to talk to the vendor about one lead or worksheet until `until` (one push at a time, on any node):
 * answers the vendor's id for it (null before it is created), or undefined while another push holds the claim.
 */
export async function claimPush(db: Q, subject: PushSubject, integration: string, now: Date, until: Date): Promise<{ external_id: string | null } | undefined> {
  return db
    .insertInto('crm_pushes')
    .values({ ...('leadId' in subject ? { lead_id: subject.leadId } : { worksheet_id: subject.worksheetId }), integration, claimed_until: until })
    .onConflict((oc) =>
      oc
        .columns(['subject_id', 'integration'])
        .doUpdateSet({ claimed_until: until })
        .where((eb) => eb.or([eb('crm_pushes.claimed_until', 'is', null), eb('crm_pushes.claimed_until', '<=', now)])),
    )
    .returning(['external_id'])
    .executeTakeFirst();
}

/** The vendor's id for the lead or worksheet, kept as soon as the vendor answers it (a later push updates instead). */
export async function keepExternalId(db: Q, subject: PushSubject, integration: string, externalId: string, at: Date): Promise<void> {
  await db
    .updateTable('crm_pushes')
    .set({ external_id: externalId, sent_at: at })
    .where('subject_id', '=', subjectIdOf(subject))
    .where('integration', '=', integration)
    .execute();
}

/** Ends a claim (the push is done, or failed). */
export async function releasePush(db: Q, subject: PushSubject, integration: string): Promise<void> {
  await db
    .updateTable('crm_pushes')
    .set({ claimed_until: null })
    .where('subject_id', '=', subjectIdOf(subject))
    .where('integration', '=', integration)
    .execute();
}
