/**
 * The sales office of bench/day.ts, written straight with SQL: a few published projects taking holds, each with
 * floors of units (bench/seed.ts's unit and project shapes), an owner, and staff users who are administrators of
 * one project each, every one with a live session and an access token signed for it (no login, no argon2 per user).
 */
import { Algorithm, hash } from '@node-rs/argon2';
import pg from 'pg';
import { newObjectId } from '../src/lib/object-id.ts';
import { signAccess } from './jwt.ts';
import { prng, projectData, unitData } from './seed.ts';

export interface DayProject {
  id: string;
  namespace: string;
  unitIds: string[];
}

export interface StaffMember {
  userId: string;
  /** Bearer token of the member's session, valid a day. */
  token: string;
  project: DayProject;
}

export interface DayOptions {
  jwtSecret: string;
  projects: number;
  floors: number;
  unitsPerFloor: number;
  staff: number;
}

/** Mostly available, as on a sales day; some sold or reserved already. No unit starts on hold. */
const AVAILABILITY = ['available', 'available', 'available', 'available', 'available', 'available', 'available', 'reserved', 'sold', 'sold'];

export async function seedDay(databaseUrl: string, opts: DayOptions): Promise<{ projects: DayProject[]; staff: StaffMember[] }> {
  const rand = prng(7);
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    // One hash for every account: nobody logs in with a password here, the sessions are written below.
    const passwordHash = await hash('bench-day-password', { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 });
    const ownerId = newObjectId();
    const staffIds = Array.from({ length: opts.staff }, () => newObjectId());
    const userIds = [ownerId, ...staffIds];
    await c.query(
      `insert into users (id, username, password_hash, role, profile)
       select id, name, $3, 'user', jsonb_build_object('name', 'Staff', 'lastName', name) from unnest($1::char(24)[], $2::text[]) as t(id, name)`,
      [userIds, userIds.map((_, i) => (i === 0 ? 'owner@day.example.com' : `staff${i}@day.example.com`)), passwordHash],
    );
    const sessionIds = staffIds.map(() => newObjectId());
    await c.query(
      `insert into sessions (id, user_id, expires_at) select id, user_id, now() + interval '1 day' from unnest($1::char(24)[], $2::char(24)[]) as t(id, user_id)`,
      [sessionIds, staffIds],
    );

    const projects: DayProject[] = [];
    for (let p = 0; p < opts.projects; p++) {
      const id = newObjectId();
      const namespace = `day-${p + 1}`;
      const name = `Day Tower ${p + 1}`;
      const administrators = staffIds.filter((_, i) => i % opts.projects === p);
      const data = { ...projectData(rand, name), published: true, enableForms: true, onHoldExperienceEnabled: true, onHoldMinsDuration: 5 };
      await c.query(`insert into projects (id, user_id, name, namespace, project_type, administrators, data) values ($1, $2, $3, $4, 'residential', $5, $6)`, [
        id,
        ownerId,
        name,
        namespace,
        administrators,
        JSON.stringify(data),
      ]);
      const floorIds = Array.from({ length: opts.floors }, () => newObjectId());
      await c.query(
        `insert into floors (id, project_id, name, position) select id, $1, name, pos from unnest($2::char(24)[], $3::text[], $4::float8[]) as t(id, name, pos)`,
        [id, floorIds, floorIds.map((_, i) => `Level ${i + 1}`), floorIds.map((_, i) => i)],
      );
      const unitIds = Array.from({ length: opts.floors * opts.unitsPerFloor }, () => newObjectId());
      const floorOf = (i: number) => Math.floor(i / opts.unitsPerFloor);
      await c.query(
        `insert into units (id, project_id, floor_id, name, position, availability, data)
         select id, $1, floor_id, name, pos, availability, data
         from unnest($2::char(24)[], $3::char(24)[], $4::text[], $5::float8[], $6::text[], $7::jsonb[]) as t(id, floor_id, name, pos, availability, data)`,
        [
          id,
          unitIds,
          unitIds.map((_, i) => floorIds[floorOf(i)]!),
          unitIds.map((_, i) => `${floorOf(i) + 1}${String((i % opts.unitsPerFloor) + 1).padStart(2, '0')}`),
          unitIds.map((_, i) => i % opts.unitsPerFloor),
          unitIds.map(() => AVAILABILITY[Math.floor(rand() * AVAILABILITY.length)]!),
          unitIds.map((_, i) => JSON.stringify(unitData(rand, i))),
        ],
      );
      projects.push({ id, namespace, unitIds });
    }
    await c.query('analyze');
    const staff = staffIds.map((userId, i) => ({
      userId,
      token: signAccess(opts.jwtSecret, userId, sessionIds[i]!, 86_400),
      project: projects[i % opts.projects]!,
    }));
    return { projects, staff };
  } finally {
    await c.end();
  }
}
