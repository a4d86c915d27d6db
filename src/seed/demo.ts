import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { newObjectId } from '../lib/object-id.ts';
import { Passwords } from '../lib/passwords.ts';
import { insertFloor, type NewFloor } from '../modules/floors/floors.repo.ts';
import { insertProject } from '../modules/projects/projects.repo.ts';
import { PROJECT_DEFAULTS } from '../modules/projects/projects.schemas.ts';
import { insertUnit, type NewUnit } from '../modules/units/unit-writes.repo.ts';
import { UNIT_DEFAULTS } from '../modules/units/units.schemas.ts';
import { findUserByUsername, insertUser } from '../modules/users/users.repo.ts';

export const DEMO_USERNAME = 'demo@showsuite.local';
export const DEMO_PASSWORD = 'demo-password';
export const DEMO_NAMESPACE = 'harbourview';

const FLOORS = 4;
/**
 * The units of each floor: where each sits on web/static/demo-floorplan.svg (x, y, width; every unit is 115
 * deep) and its bedrooms.
 */
const UNIT_PLAN: [x: number, y: number, w: number, bedrooms: number][] = [
  [15, 15, 190, 1],
  [205, 15, 190, 2],
  [395, 15, 190, 2],
  [15, 170, 200, 3],
  [305, 170, 140, 1],
  [445, 170, 140, 2],
];
const AVAILABILITY = ['available', 'available', 'reserved', 'sold', 'available', 'leased', 'available', 'unavailable'];

/**
 * The demo account and its presentation (a project with floors and units laid out on an SVG floor plan),
 * created once: a second start finds the account and leaves everything as it is.
 */
export async function seedDemo(db: Db, log: FastifyBaseLogger, config: Config) {
  if (!(await findUserByUsername(db.kysely, DEMO_USERNAME))) {
    await db.kysely.transaction().execute(async (trx) => {
      const user = await insertUser(trx, {
        id: newObjectId(),
        username: DEMO_USERNAME,
        passwordHash: await new Passwords(config.argon2).hash(DEMO_PASSWORD),
        role: 'user',
        profile: { name: 'Demo', lastName: 'Developer', companyName: 'Harbourview Developments' },
      });
      const project = await insertProject(trx, {
        id: newObjectId(),
        userId: user.id,
        name: 'Harbourview Residences',
        namespace: DEMO_NAMESPACE,
        hostName: null,
        projectType: 'residential',
        administrators: [],
        editors: [],
        secrets: {},
        data: {
          ...PROJECT_DEFAULTS,
          websiteURL: 'https://harbourview.example.com',
          address: '12 Quay Street, Harbour District',
          areaUnit: 'sq ft',
          projectLang: 'en',
          enableForms: true,
          onHoldExperienceEnabled: true,
          onHoldMinsDuration: 10,
          hideSold: false,
          colorBase: '#1f2a44',
          colorAccent: '#c8553d',
          colorAvailable: '#2e7d32',
          colorSold: '#b71c1c',
          colorReserved: '#e65100',
          formsSubject: 'New enquiry: Harbourview Residences',
          // The demo's drawings and renderings ship with the page (web/static).
          initialView: 'Building',
          projectImageUrl: '/p/assets/demo-hero.webp',
          sharePageLogo: '/p/assets/demo-logo.webp',
          sharePageEnabled: true,
          sharePageDescription:
            'Harbourview Residences: one- to three-bedroom homes on the quay, with harbour views. See every floor plan, price and availability.',
          alternativeCovers: ['/p/assets/demo-living.webp', '/p/assets/demo-kitchen.webp', '/p/assets/demo-view.webp'],
          waitlistEnabled: true,
        },
      });
      // The floors in one statement and the units in another, not one each: on the embedded engine every statement
      // is a round through its WebAssembly (~0.1 s of a first start saved).
      const floors: NewFloor[] = [];
      const units: NewUnit[] = [];
      for (let f = 0; f < FLOORS; f++) {
        const floorId = newObjectId();
        floors.push({
          id: floorId,
          projectId: project.id,
          name: `Level ${f + 1}`,
          position: f + 1,
          // The floor's band across the tower of the hero picture (1280 × 720, its pixels): Level 1 at the quay.
          data: { floorplanUrl: '/p/assets/demo-floorplan.svg', path: `M496 ${421 - 91 * f} H808 V${512 - 91 * f} H496 Z` },
        });
        for (const [u, [x, y, w, bedrooms]] of UNIT_PLAN.entries()) {
          // The area follows the drawing: 10 sq ft per square unit of the plan, give or take the walls.
          const area = Math.round((w * 115) / 21.5 / 5) * 5;
          units.push({
            id: newObjectId(),
            projectId: project.id,
            floorId,
            name: `${f + 1}0${u + 1}`,
            position: u + 1,
            availability: AVAILABILITY[(f * UNIT_PLAN.length + u) % AVAILABILITY.length] ?? 'available',
            onHoldExpiresAt: null,
            data: {
              ...UNIT_DEFAULTS,
              bedrooms: String(bedrooms),
              bathrooms: bedrooms > 1 ? 2 : 1,
              parking: bedrooms > 2 ? 2 : 1,
              squareFeet: area,
              price: Math.round((310_000 + area * 420 + f * 12_000) / 1000) * 1000,
              orientation: ['North', 'East', 'South', 'West'][u % 4],
              description: `A ${bedrooms}-bedroom home on level ${f + 1} with harbour light.`,
              path: `M${x} ${y} h${w} v115 h-${w} Z`,
              layoutUrl: `/p/assets/demo-plan-${bedrooms}bed.svg`,
              images: ['/p/assets/demo-living.webp', '/p/assets/demo-kitchen.webp', '/p/assets/demo-view.webp'].slice(0, bedrooms + 1),
              additionalInfo: [{ label: 'Balcony', value: u % 2 ? 'Yes' : 'No' }],
            },
          });
        }
      }
      await insertFloor(trx, floors);
      await insertUnit(trx, units);
    });
  }
  log.info(`demo login: ${DEMO_USERNAME} / ${DEMO_PASSWORD} (presentation namespace "${DEMO_NAMESPACE}")`);
}
