import * as allocations from '../../../src/modules/allocations/allocations.repo.ts';
import * as floors from '../../../src/modules/floors/floors.repo.ts';
import * as groups from '../../../src/modules/groups/groups.repo.ts';
import * as inventory from '../../../src/modules/inventory/inventory.repo.ts';
import * as media from '../../../src/modules/media/media.repo.ts';
import * as projects from '../../../src/modules/projects/projects.repo.ts';
import * as unitWrites from '../../../src/modules/units/unit-writes.repo.ts';
import * as units from '../../../src/modules/units/units.repo.ts';
import { repo } from '../record.ts';
import { ADMIN, AT, ID, ID2, NOW, TEXT, USER } from '../dummies.ts';

const page = { skip: 0, limit: 10, sort: 'name' };
const visibleValues = { me: ID, since: AT, skip: 0, limit: 10 };
const projectValues = { ...visibleValues, pattern: TEXT, type: TEXT };
const unitFields = { id: ID, floorId: ID2, name: TEXT, position: 0, availability: 'available', data: { price: 1 } };

export default [
  repo('src/modules/projects/projects.repo.ts', projects, {
    draftOwnerProjects: (db) => projects.draftOwnerProjects(db, ID, NOW),
    markOwnerProjectsBilled: (db) => projects.markOwnerProjectsBilled(db, ID, { plan: { name: TEXT }, subscriptionItem: TEXT }, NOW),
    addProjectMember: (db) => projects.addProjectMember(db, ID, ID2, 'editor', NOW),
    deleteProject: [
      { label: 'any version', run: (db) => projects.deleteProject(db, ID) },
      { label: 'If-Match', run: (db) => projects.deleteProject(db, ID, 3) },
    ],
    findProject: (db) => projects.findProject(db, ID),
    findProjectMembership: (db) => projects.findProjectMembership(db, ID),
    findProjectMemberships: (db) => projects.findProjectMemberships(db, [ID, ID2]),
    insertProject: {
      rows: [{ id: ID }],
      run: (db) =>
        projects.insertProject(db, {
          id: ID,
          userId: ID2,
          name: TEXT,
          namespace: TEXT,
          hostName: null,
          projectType: null,
          administrators: [],
          editors: [],
          data: {},
          secrets: {},
        }),
    },
    listProjectInvite: (db) => projects.listProjectInvite(db, ID, { _id: ID2 }, NOW),
    listProjects: [
      {
        label: "a user's projects, by name, past the last page (asked again for the count)",
        run: (db) => projects.listProjects(db, USER, { ...page, skip: 10 }),
      },
      {
        label: 'an administrator, name and type filters, updatedSince, newest first',
        rows: [{ item: '{}', total: 1 }],
        run: (db) => projects.listProjects(db, ADMIN, { ...page, sort: '-createdAt', name: TEXT, projectType: TEXT, updatedSince: AT.toISOString() }),
      },
    ],
    listProjectsQuery: [
      {
        label: "a user's, by name",
        run: (db) => projects.listProjectsQuery(db, projectValues, { all: false, since: false, sort: 'name', name: false, type: false }),
      },
      {
        label: 'an administrator, name filter, type filter, updatedSince, newest first',
        run: (db) => projects.listProjectsQuery(db, projectValues, { all: true, since: true, sort: '-createdAt', name: true, type: true }),
      },
    ],
    setLastSync: (db) => projects.setLastSync(db, ID, AT),
    touchOwnerBundles: (db) => projects.touchOwnerBundles(db, ID),
    transferProjectOwner: (db) => projects.transferProjectOwner(db, ID, ID2, NOW),
    unlistProjectInvite: (db) => projects.unlistProjectInvite(db, ID, ID2, NOW),
    updateProject: (db) =>
      projects.updateProject(
        db,
        ID,
        { columns: { name: TEXT, namespace: null }, data: { title: TEXT }, secretsSet: { ftpPassword: TEXT }, secretsRemove: ['sfKey'] },
        { at: NOW, ifVersion: 3 },
      ),
  }),
  repo('src/modules/floors/floors.repo.ts', floors, {
    deleteFloor: [
      { label: 'any version', run: (db) => floors.deleteFloor(db, ID) },
      { label: 'If-Match', run: (db) => floors.deleteFloor(db, ID, 3) },
    ],
    findFloor: (db) => floors.findFloor(db, ID),
    floorNamesOf: (db) => floors.floorNamesOf(db, ID),
    insertFloor: (db) => floors.insertFloor(db, [{ id: ID, projectId: ID2, name: TEXT, position: 0, data: {} }]),
    listFloorUnits: (db) => floors.listFloorUnits(db, ID),
    nextFloorPosition: { rows: [{ next: 0 }], run: (db) => floors.nextFloorPosition(db, ID) },
    pageFloors: [
      { label: 'position order', run: (db) => floors.pageFloors(db, ID, { skip: 0, limit: 10, sort: undefined }) },
      { label: 'updatedSince, sorted', run: (db) => floors.pageFloors(db, ID, { skip: 0, limit: 10, sort: '-updatedAt', updatedSince: AT.toISOString() }) },
    ],
    projectsOfFloors: (db) => floors.projectsOfFloors(db, [ID, ID2]),
    toFloor: { noSql: 'maps a row to its record' },
    updateFloor: (db) => floors.updateFloor(db, ID, { columns: { name: TEXT }, data: { title: TEXT } }, { at: NOW, ifVersion: 3 }),
  }),
  repo('src/modules/units/units.repo.ts', units, {
    findUnit: (db) => units.findUnit(db, ID),
    findUnitDocument: (db) => units.findUnitDocument(db, ID),
    findUnitDocumentQuery: (db) => units.findUnitDocumentQuery(db, { id: ID }),
    findUnitQuery: (db) => units.findUnitQuery(db, { id: ID }),
    findUnitsByIds: (db) => units.findUnitsByIds(db, [ID, ID2]),
    listUnits: [
      { label: 'floor and position order', run: (db) => units.listUnits(db, ID, { skip: 0, limit: 10, sort: undefined, now: NOW }) },
      {
        label: 'every filter, sorted',
        run: (db) =>
          units.listUnits(db, ID, {
            skip: 0,
            limit: 10,
            sort: '-name',
            now: NOW,
            floorId: ID2,
            availability: ['available', 'on_hold', 'sold'],
            updatedSince: AT.toISOString(),
            priceMin: 1,
            priceMax: 2,
            areaMin: 1,
            areaMax: 2,
            bedroomsMin: 1,
            bedroomsMax: 2,
          }),
      },
    ],
    unitIdsInProject: (db) => units.unitIdsInProject(db, ID, [ID2]),
    unitIdsOfType: (db) => units.unitIdsOfType(db, ID, TEXT),
  }),
  repo('src/modules/units/unit-writes.repo.ts', unitWrites, {
    deleteUnit: [
      { label: 'any version', run: (db) => unitWrites.deleteUnit(db, ID) },
      { label: 'If-Match', run: (db) => unitWrites.deleteUnit(db, ID, 3) },
    ],
    insertUnit: (db) =>
      unitWrites.insertUnit(db, { id: ID, projectId: ID2, floorId: null, name: TEXT, position: 0, availability: 'available', onHoldExpiresAt: null, data: {} }),
    insertUnits: (db) => unitWrites.insertUnits(db, ID, [unitFields]),
    reserveDepositUnit: (db) => unitWrites.reserveDepositUnit(db, ID, ID2, NOW),
    reserveUnit: [
      { label: 'a free unit', run: (db) => unitWrites.reserveUnit(db, ID, ID2, false, NOW) },
      { label: "a free unit or one held by the worksheet's allocation", run: (db) => unitWrites.reserveUnit(db, ID, ID2, true, NOW) },
    ],
    updateUnit: [
      { label: 'columns and fields', run: (db) => unitWrites.updateUnit(db, ID, { columns: { name: TEXT }, data: { price: 1 } }, { at: NOW, ifVersion: 3 }) },
      { label: 'leaving on_hold clears the hold', run: (db) => unitWrites.updateUnit(db, ID, { columns: { availability: 'sold' }, data: {} }, { at: NOW }) },
    ],
    updateUnits: (db) => unitWrites.updateUnits(db, [{ id: ID, name: TEXT, availability: 'sold', ifVersion: 3, data: {} }], NOW),
  }),
  repo('src/modules/groups/groups.repo.ts', groups, {
    addGroupMember: (db) => groups.addGroupMember(db, ID, ID2, 'administrator', NOW),
    deleteGroup: [
      { label: 'any version', run: (db) => groups.deleteGroup(db, ID) },
      { label: 'If-Match', run: (db) => groups.deleteGroup(db, ID, 3) },
    ],
    findGroup: (db) => groups.findGroup(db, ID),
    insertGroup: (db) => groups.insertGroup(db, { id: ID, userId: ID2, name: TEXT, change: { columns: { namespace: TEXT }, data: {} } }),
    listGroupInvite: (db) => groups.listGroupInvite(db, ID, { _id: ID2 }, NOW),
    listGroups: [
      { label: "a user's groups, by name", run: (db) => groups.listGroups(db, USER, page) },
      {
        label: 'an administrator, updatedSince, last changed first',
        run: (db) => groups.listGroups(db, ADMIN, { ...page, sort: '-updatedAt', updatedSince: AT.toISOString() }),
      },
    ],
    listGroupsQuery: [
      { label: "a user's groups, by name", run: (db) => groups.listGroupsQuery(db, visibleValues, { all: false, since: false, sort: 'name' }) },
      {
        label: 'an administrator, updatedSince, last changed first',
        run: (db) => groups.listGroupsQuery(db, visibleValues, { all: true, since: true, sort: '-updatedAt' }),
      },
    ],
    setGroupProjects: (db) => groups.setGroupProjects(db, ID, [ID2]),
    toGroup: { noSql: 'maps a row to its record' },
    touchGroupsListing: (db) => groups.touchGroupsListing(db, ID, NOW),
    transferGroupOwner: (db) => groups.transferGroupOwner(db, ID, ID2, NOW),
    unlistGroupInvite: (db) => groups.unlistGroupInvite(db, ID, ID2, NOW),
    updateGroup: (db) => groups.updateGroup(db, ID, { columns: { name: TEXT }, data: { title: TEXT } }, { at: NOW, ifVersion: 3 }),
  }),
  repo('src/modules/inventory/inventory.repo.ts', inventory, {
    claimFeedPull: (db) => inventory.claimFeedPull(db, ID, 'ftp', AT, 60_000),
    feedProjectIds: (db) => inventory.feedProjectIds(db),
    rentcafeProjectIds: (db) => inventory.rentcafeProjectIds(db),
    insertSync: (db) =>
      inventory.insertSync(db, {
        id: ID,
        projectId: ID2,
        source: 'upload',
        status: 'applied',
        startedAt: AT,
        finishedAt: AT,
        summary: {},
        errors: [],
        userId: null,
      }),
    inventoryEtag: { noSql: 'a digest of rows already read' },
    listSyncs: (db) => inventory.listSyncs(db, ID, { skip: 0, limit: 10 }),
    loadInventory: [
      { label: 'a read', run: (db) => inventory.loadInventory(db, ID, false) },
      { label: "locked for an import's transaction", run: (db) => inventory.loadInventory(db, ID, true) },
    ],
    lockProject: (db) => inventory.lockProject(db, ID),
  }),
  repo('src/modules/allocations/allocations.repo.ts', allocations, {
    findAllocationDoor: (db) => allocations.findAllocationDoor(db, TEXT),
    findAllocationSeal: (db) => allocations.findAllocationSeal(db, ID, TEXT),
    findUnitAllocation: (db) => allocations.findUnitAllocation(db, ID, ID2),
    listAllocatedUnits: [
      { label: 'units free now', run: (db) => allocations.listAllocatedUnits(db, ID) },
      { label: 'any availability', run: (db) => allocations.listAllocatedUnits(db, ID, { anyStatus: true }) },
    ],
  }),
  repo('src/modules/media/media.repo.ts', media, {
    claimMediaSweep: (db) => media.claimMediaSweep(db, AT, 60_000),
    forgetOrphans: (db) => media.forgetOrphans(db, [TEXT]),
    markOrphans: (db) => media.markOrphans(db, [TEXT], AT, AT),
    referencedMediaNames: (db) => media.referencedMediaNames(db),
  }),
];
