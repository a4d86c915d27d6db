import { sql } from 'kysely';
import * as memberLists from '../../../src/db/member-lists.repo.ts';
import * as reorder from '../../../src/db/reorder.repo.ts';
import * as versioned from '../../../src/db/versioned.repo.ts';
import { repo } from '../record.ts';
import { ID, ID2, NOW, TEXT } from '../dummies.ts';

export default [
  repo('src/db/member-lists.repo.ts', memberLists, {
    addMember: (db) => memberLists.addMember(db, 'projects', ID, ID2, 'administrator', NOW),
    listInvite: (db) => memberLists.listInvite(db, 'groups', ID, { _id: ID2 }, NOW),
    transferOwner: (db) => memberLists.transferOwner(db, 'projects', ID, ID2, NOW),
    unlistInvite: (db) => memberLists.unlistInvite(db, 'projects', ID, ID2, NOW),
  }),
  repo('src/db/reorder.repo.ts', reorder, {
    byChildOrder: { noSql: 'compares two children already read, in TypeScript' },
    childOrderSql: () => reorder.childOrderSql('u'),
    childOrderText: () => reorder.childOrderText('f'),
    reorderChildren: [
      { label: 'floors of a project', run: (db) => reorder.reorderChildren(db, 'floors', ID, [ID2], NOW) },
      { label: 'units of a floor', run: (db) => reorder.reorderChildren(db, 'units', ID, [ID2], NOW) },
    ],
  }),
  repo('src/db/versioned.repo.ts', versioned, {
    bumpVersions: (db) => versioned.bumpVersions(db, 'floors', [ID, ID2], NOW),
    jsonMerge: () => versioned.jsonMerge('data', { name: TEXT }),
    returning: { noSql: 'names the columns a versioned update answers with; versionedUpdate writes them' },
    versionBumpSql: () => versioned.versionBumpSql(NOW, 'u'),
    versionedUpdate: [
      { label: 'one row, its columns', run: (db) => versioned.versionedUpdate(db, 'units', ID, { name: TEXT }, { at: NOW }) },
      {
        label: 'If-Match, a condition, an alias and the row answered',
        run: (db) =>
          versioned.versionedUpdate(
            db,
            'units',
            ID,
            { name: TEXT },
            { at: NOW, ifVersion: 3, as: 'u', where: sql<boolean>`u.availability = 'available'`, returning: versioned.returning(['u.id', 'u.version']) },
          ),
      },
      { label: 'several rows by id', run: (db) => versioned.versionedUpdate(db, 'groups', { in: [ID, ID2] }, {}, { at: NOW }) },
    ],
  }),
];
