/**
 * Benchmark data, written straight with SQL (a few multi-row inserts, seconds not minutes):
 * the bench user with a live session (and a signed access token for it), one showcase project with
 * 20 floors × 500 units, 10,000 more projects of the bench user and 2,000 of a stranger (invisible to it).
 */
import { Algorithm, hash } from '@node-rs/argon2';
import pg from 'pg';
import { newObjectId } from '../src/lib/object-id.ts';
import { signAccess } from './jwt.ts';

export interface SeedOptions {
  jwtSecret: string;
  floors?: number;
  units?: number;
  projects?: number;
  strangerProjects?: number;
}

export interface Seeded {
  userId: string;
  username: string;
  password: string;
  sessionId: string;
  /** Bearer token of the bench user, signed with jwtSecret; valid 1 day, like the service's own. */
  token: string;
  projectId: string;
  floorIds: string[];
  unitIds: string[];
  /** An ordinary available unit in the middle of the showcase project. */
  sampleUnitId: string;
  projects: number;
  showcaseNamespace: string;
}

const PREFIXES = ['Tower', 'Harbour Lofts', 'Park Residences', 'The Quays', 'Riverside Gardens', 'Maple Court', 'Skyline', 'Old Mill'];
const AVAILABILITY = ['available', 'available', 'available', 'available', 'reserved', 'sold', 'sold', 'leased', 'unavailable', 'on_hold'];

/** Small deterministic PRNG so every run seeds the same shapes. */
export function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function unitData(rand: () => number, n: number) {
  const bedrooms = 1 + Math.floor(rand() * 4);
  const img = (k: number) => `https://cdn.example.com/showcase/units/${n}/image-${k}.jpg`;
  return {
    bedrooms: String(bedrooms),
    bathrooms: Math.max(1, bedrooms - Math.floor(rand() * 2)),
    squareFeet: 450 + bedrooms * 300 + Math.floor(rand() * 200),
    price: 250_000 + bedrooms * 120_000 + Math.floor(rand() * 50_000),
    parking: Math.floor(rand() * 3),
    isFeatured: rand() < 0.1,
    type: `${bedrooms}B-${'ABCD'[Math.floor(rand() * 4)]}`,
    orientation: ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'][Math.floor(rand() * 8)]!,
    deliveryDate: '2027-Q2',
    description: `A ${bedrooms}-bedroom home with floor-to-ceiling windows, an open kitchen and a private balcony.`,
    unitImageUrl: img(0),
    layoutUrl: `https://cdn.example.com/showcase/layouts/${bedrooms}b.svg`,
    images: [img(1), img(2), img(3), img(4)],
    layoutGallery: [`https://cdn.example.com/showcase/layouts/${bedrooms}b-furnished.jpg`],
    finishes: ['oak-floor', 'quartz-counter', 'brushed-brass'],
    additionalInfo: [
      { label: 'Service charge', value: `£${(2 + rand() * 3).toFixed(2)}/sq ft` },
      { label: 'Ceiling height', value: '2.7 m' },
    ],
  };
}

export function projectData(rand: () => number, name: string) {
  return {
    websiteURL: `https://${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example.com`,
    accentColor: '#1f6feb',
    address: `${1 + Math.floor(rand() * 200)} Quay Street, Manchester`,
    areaUnit: 'sqft',
    projectLang: 'en',
    propertyType: 'residential',
    initialView: 'List',
    mapStyle: 'Light',
    onHoldMinsDuration: 5,
    showPrices: true,
    showAvailability: true,
    lat: 53.47 + rand() / 100,
    lon: -2.25 + rand() / 100,
    images: ['https://cdn.example.com/hero.jpg', 'https://cdn.example.com/lobby.jpg'],
  };
}

/** What seeding needs of a database: parameterised statements (a pg client, or the embedded database through Kysely). */
export interface SeedClient {
  query(text: string, params?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

export async function seed(databaseUrl: string, opts: SeedOptions): Promise<Seeded> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return seedWith(client, opts);
}

/** The same data through any client (bench/bundle-nginx.ts seeds the embedded database with it); ends the client. */
export async function seedWith(client: SeedClient, opts: SeedOptions): Promise<Seeded> {
  const floorCount = opts.floors ?? 20;
  const unitCount = opts.units ?? 500;
  const projectCount = opts.projects ?? 10_000;
  const strangerCount = opts.strangerProjects ?? 2_000;
  const rand = prng(42);
  try {
    const userId = newObjectId();
    const strangerId = newObjectId();
    const username = 'bench@example.com';
    const password = 'bench-password-123';
    // Default service parameters, so a manual login as the bench user costs what a real one does.
    const passwordHash = await hash(password, { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 });
    await client.query(
      `insert into users (id, username, password_hash, role, profile) values
       ($1, $2, $3, 'user', '{"name":"Bench","lastName":"User"}'), ($4, 'stranger@example.com', $3, 'user', '{}')`,
      [userId, username, passwordHash, strangerId],
    );
    const sessionId = newObjectId();
    await client.query(`insert into sessions (id, user_id, expires_at) values ($1, $2, now() + interval '7 days')`, [sessionId, userId]);

    const projectId = newObjectId();
    await client.query(
      `insert into projects (id, user_id, name, namespace, host_name, project_type, data, secrets)
       values ($1, $2, 'Bench Showcase', 'bench-showcase', 'showcase.example.com', 'residential', $3, $4)`,
      [projectId, userId, JSON.stringify(projectData(rand, 'Bench Showcase')), JSON.stringify({ sfKey: 'sealed:x', sfSecret: 'sealed:y' })],
    );
    const floorIds = Array.from({ length: floorCount }, () => newObjectId());
    await client.query(
      `insert into floors (id, project_id, name, position, data)
       select id, $1, name, pos, jsonb_build_object('floorImageUrl', 'https://cdn.example.com/floors/' || pos || '.svg')
       from unnest($2::char(24)[], $3::text[], $4::float8[]) as t(id, name, pos)`,
      [projectId, floorIds, floorIds.map((_, i) => `Level ${i + 1}`), floorIds.map((_, i) => i)],
    );

    const unitIds = Array.from({ length: unitCount }, () => newObjectId());
    const perFloor = Math.ceil(unitCount / floorCount);
    const availability = unitIds.map(() => AVAILABILITY[Math.floor(rand() * AVAILABILITY.length)]!);
    // Half the holds are still running, half have lapsed (they read as available).
    const holdEnds = availability.map((a, i) => (a === 'on_hold' ? new Date(Date.now() + (i % 2 ? 3_600_000 : -3_600_000)).toISOString() : null));
    await client.query(
      `insert into units (id, project_id, floor_id, name, position, availability, on_hold_expires_at, data)
       select id, $1, floor_id, name, pos, availability, hold_ends, data
       from unnest($2::char(24)[], $3::char(24)[], $4::text[], $5::float8[], $6::text[], $7::timestamptz[], $8::jsonb[])
         as t(id, floor_id, name, pos, availability, hold_ends, data)`,
      [
        projectId,
        unitIds,
        unitIds.map((_, i) => floorIds[Math.floor(i / perFloor)]!),
        unitIds.map((_, i) => `${Math.floor(i / perFloor) + 1}${String((i % perFloor) + 1).padStart(2, '0')}`),
        unitIds.map((_, i) => i % perFloor),
        availability,
        holdEnds,
        unitIds.map((_, i) => JSON.stringify(unitData(rand, i))),
      ],
    );

    // Names like "Tower 12", "Harbour Lofts 123": a per-prefix counter, so "Tower 12" matches 12, 120–129, 1200–1299.
    const counters = new Map<string, number>();
    const makeProjects = (count: number, ownerId: string, tag: string) =>
      Array.from({ length: count }, (_, i) => {
        const prefix = PREFIXES[i % PREFIXES.length]!;
        const n = (counters.get(prefix) ?? 0) + 1;
        counters.set(prefix, n);
        const name = `${prefix} ${n}`;
        return {
          id: newObjectId(),
          ownerId,
          name,
          namespace: `${tag}${name.toLowerCase().replace(/ /g, '-')}`,
          data: JSON.stringify(projectData(rand, name)),
          ageSec: i,
        };
      });
    const others = [...makeProjects(projectCount, userId, ''), ...makeProjects(strangerCount, strangerId, 'x-')];
    for (let i = 0; i < others.length; i += 2_000) {
      const chunk = others.slice(i, i + 2_000);
      await client.query(
        `insert into projects (id, user_id, name, namespace, project_type, data, created_at, updated_at)
         select id, owner, name, namespace, 'residential', data, now() - make_interval(secs => age + 60), now() - make_interval(secs => age + 60)
         from unnest($1::char(24)[], $2::char(24)[], $3::text[], $4::text[], $5::jsonb[], $6::int[]) as t(id, owner, name, namespace, data, age)`,
        [
          chunk.map((p) => p.id),
          chunk.map((p) => p.ownerId),
          chunk.map((p) => p.name),
          chunk.map((p) => p.namespace),
          chunk.map((p) => p.data),
          chunk.map((p) => p.ageSec),
        ],
      );
    }
    await client.query('analyze');

    const mid = Math.floor(unitCount / 2);
    const sample = unitIds.find((_, i) => i >= mid && availability[i] === 'available') ?? unitIds[mid]!;
    return {
      userId,
      username,
      password,
      sessionId,
      token: signAccess(opts.jwtSecret, userId, sessionId, 86_400),
      projectId,
      floorIds,
      unitIds,
      sampleUnitId: sample,
      projects: projectCount + 1,
      showcaseNamespace: 'bench-showcase',
    };
  } finally {
    await client.end();
  }
}
