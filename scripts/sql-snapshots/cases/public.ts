import * as leadMail from '../../../src/mail/lead-mail.repo.ts';
import * as worksheetMail from '../../../src/mail/worksheet-mail.repo.ts';
import * as presentation from '../../../src/presentation/presentation.repo.ts';
import * as bundle from '../../../src/public/bundle.repo.ts';
import * as publicRepo from '../../../src/public/public.repo.ts';
import { repo } from '../record.ts';
import { ID, ID2, NOW, TEXT } from '../dummies.ts';

export default [
  repo('src/presentation/presentation.repo.ts', presentation, {
    findGroupByHost: (db) => presentation.findGroupByHost(db, TEXT),
    findGroupByNamespace: (db) => presentation.findGroupByNamespace(db, TEXT),
    findOwnerPreferences: (db) => presentation.findOwnerPreferences(db, ID),
    findProjectUnit: (db) => presentation.findProjectUnit(db, ID, ID2),
    listGroupCards: (db) => presentation.listGroupCards(db, ID, NOW),
  }),
  repo('src/public/bundle.repo.ts', bundle, {
    findBundleHead: [
      { label: 'by namespace', run: (db) => bundle.findBundleHead(db, { namespace: TEXT }, NOW) },
      { label: 'by host name', run: (db) => bundle.findBundleHead(db, { hostName: TEXT }, NOW) },
    ],
    listBundleFloors: (db) => bundle.listBundleFloors(db, ID),
    listBundleUnits: (db) => bundle.listBundleUnits(db, ID),
  }),
  repo('src/public/public.repo.ts', publicRepo, {
    findFormProject: [
      { label: 'by id', run: (db) => publicRepo.findFormProject(db, { project: ID }) },
      { label: 'by namespace', run: (db) => publicRepo.findFormProject(db, { namespace: TEXT }) },
    ],
    findLastEventSeq: (db) => publicRepo.findLastEventSeq(db, ID),
    findProjectByNamespace: (db) => publicRepo.findProjectByNamespace(db, TEXT),
    listEventsAfter: [
      { label: 'after a seq', run: (db) => publicRepo.listEventsAfter(db, ID, 0, undefined, 10) },
      { label: 'between two seqs', run: (db) => publicRepo.listEventsAfter(db, ID, 0, 5, 10) },
    ],
  }),
  repo('src/mail/lead-mail.repo.ts', leadMail, {
    findMailProject: (db) => leadMail.findMailProject(db, ID),
    findProjectSignature: (db) => leadMail.findProjectSignature(db, ID),
    findUnitName: (db) => leadMail.findUnitName(db, ID, ID2),
  }),
  repo('src/mail/worksheet-mail.repo.ts', worksheetMail, {
    findManagerEmails: (db) => worksheetMail.findManagerEmails(db, ID),
    findUnitNamesOf: (db) => worksheetMail.findUnitNamesOf(db, ID, [ID, ID2]),
  }),
];
