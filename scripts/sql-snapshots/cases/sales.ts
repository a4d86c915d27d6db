import * as bookings from '../../../src/modules/integrations/bookings.repo.ts';
import * as deposits from '../../../src/modules/deposits/deposits.repo.ts';
import * as holds from '../../../src/modules/holds/holds.repo.ts';
import * as integrations from '../../../src/modules/integrations/integrations.repo.ts';
import * as leads from '../../../src/modules/leads/leads.repo.ts';
import * as priority from '../../../src/modules/priority/priority.repo.ts';
import * as worksheets from '../../../src/modules/worksheets/worksheets.repo.ts';
import { repo } from '../record.ts';
import { ADMIN, AT, EMAIL, ID, ID2, NOW, TEXT, USER } from '../dummies.ts';

export default [
  repo('src/modules/leads/leads.repo.ts', leads, {
    containsPattern: { noSql: 'writes a LIKE pattern, a value its callers pass as a parameter' },
    deleteLeads: (db) => leads.deleteLeads(db, [ID, ID2]),
    mergeLeadData: (db) => leads.mergeLeadData(db, ID, { booking: { status: TEXT } }, NOW),
    findLead: (db) => leads.findLead(db, ID),
    findLeadWithTeam: (db) => leads.findLeadWithTeam(db, ID),
    findProjectNames: (db) => leads.findProjectNames(db, [ID, ID2]),
    findUnitNames: (db) => leads.findUnitNames(db, [ID], [ID2]),
    insertLead: [
      { label: 'created now by the database (fixtures)', rows: [{ id: ID }], run: (db) => leads.insertLead(db, { id: ID, projectId: ID2, data: {} }) },
      { label: 'created at the service clock', rows: [{ id: ID }], run: (db) => leads.insertLead(db, { id: ID, projectId: ID2, data: {}, createdAt: AT }) },
    ],
    leadReadableProjects: (db) => leads.leadReadableProjects(db, ID),
    listLeads: [
      { label: "one project's, newest first", run: (db) => leads.listLeads(db, { project: ID }, { skip: 0, limit: 10, sort: undefined }, NOW) },
      { label: "an administrator's, every project", run: (db) => leads.listLeads(db, { principal: ADMIN }, { skip: 0, limit: 10, sort: 'name' }, NOW) },
      {
        label: "a user's readable projects, every filter",
        run: (db) =>
          leads.listLeads(
            db,
            { principal: USER },
            {
              skip: 0,
              limit: 10,
              sort: '-updatedAt',
              updatedSince: AT.toISOString(),
              q: TEXT,
              status: TEXT,
              unit: ID2,
              source: TEXT,
              assignee: ID2,
              createdFrom: AT,
              createdBefore: AT,
              email: EMAIL,
            },
            NOW,
          ),
      },
    ],
    markLeadDeposit: (db) => leads.markLeadDeposit(db, ID, { _id: ID2, status: 'paid', amount: 1, currency: 'cad' }),
    markOffered: (db) => leads.markOffered(db, ID, NOW),
    recordSentTo: (db) => leads.recordSentTo(db, ID, { integration: TEXT, at: AT.toISOString(), externalId: TEXT }),
    toLead: { noSql: 'maps a row to its record' },
    updateLead: (db) => leads.updateLead(db, ID, { status: TEXT, assignee: ID2 }, { at: NOW, ifVersion: 3 }),
    writeRanks: (db) => leads.writeRanks(db, [ID, ID2]),
  }),
  repo('src/modules/priority/priority.repo.ts', priority, {
    findFirstWaiting: (db) => priority.findFirstWaiting(db, ID, ID2),
    findLeadForRank: (db) => priority.findLeadForRank(db, ID),
    findLeadRow: (db) => priority.findLeadRow(db, ID),
    hasWaiting: (db) => priority.hasWaiting(db, ID, ID2),
    listWaiting: (db) => priority.listWaiting(db, ID, ID2),
    listWaitingLeads: (db) => priority.listWaitingLeads(db, ID, ID2),
    lockUnitForWaitlist: (db) => priority.lockUnitForWaitlist(db, ID, ID2),
    lockWaitingList: (db) => priority.lockWaitingList(db, ID, ID2),
    nextRank: (db) => priority.nextRank(db, ID, ID2),
  }),
  repo('src/modules/holds/holds.repo.ts', holds, {
    countLiveHolds: { rows: [{ n: 0, first_lapse: null }], run: (db) => holds.countLiveHolds(db, TEXT, NOW) },
    deleteEndedLeadHolds: (db) => holds.deleteEndedLeadHolds(db, [ID, ID2]),
    extendHeldUnit: (db) => holds.extendHeldUnit(db, ID, ID2, AT, NOW),
    findEndedHold: (db) => holds.findEndedHold(db, ID),
    findHoldByToken: [
      { label: 'a read', run: (db) => holds.findHoldByToken(db, TEXT, false) },
      { label: "its unit's row locked", run: (db) => holds.findHoldByToken(db, TEXT, true) },
    ],
    findHoldTarget: (db) => holds.findHoldTarget(db, ID),
    holdUnit: (db) => holds.holdUnit(db, ID, ID2, AT, NOW),
    insertHold: (db) => holds.insertHold(db, { id: ID, unitId: ID2, projectId: ID, tokenHash: TEXT, client: TEXT, leadId: null, createdAt: AT }),
    lockClientHolds: (db) => holds.lockClientHolds(db, TEXT),
    lockUnitHold: (db) => holds.lockUnitHold(db, ID),
    markHoldExtended: (db) => holds.markHoldExtended(db, ID, NOW),
    markHoldReleased: (db) => holds.markHoldReleased(db, ID, NOW),
    releaseExpiredHold: (db) => holds.releaseExpiredHold(db, ID, NOW),
    releaseHeldUnit: (db) => holds.releaseHeldUnit(db, ID, ID2, NOW),
    releaseLapsedHolds: (db) => holds.releaseLapsedHolds(db, NOW),
    trySweepLock: (db) => holds.trySweepLock(db),
  }),
  repo('src/modules/deposits/deposits.repo.ts', deposits, {
    claimPendingDeposits: (db) => deposits.claimPendingDeposits(db, NOW, 10),
    findDeposit: [
      { label: 'a read', run: (db) => deposits.findDeposit(db, ID) },
      { label: 'locked', run: (db) => deposits.findDeposit(db, ID, true) },
    ],
    findDepositMailContext: { rows: [{ project_name: TEXT }], run: (db) => deposits.findDepositMailContext(db, ID) },
    findDepositTerms: (db) => deposits.findDepositTerms(db, ID),
    findPublicDeposit: (db) => deposits.findPublicDeposit(db, ID),
    insertDeposit: (db) =>
      deposits.insertDeposit(db, {
        id: ID,
        projectId: ID2,
        unitId: ID,
        leadId: ID2,
        holdId: ID,
        accountId: TEXT,
        sessionId: TEXT,
        amount: 1,
        currency: 'cad',
        buyerName: TEXT,
        buyerEmail: EMAIL,
        createdAt: AT,
        expiresAt: AT,
      }),
    listProjectDeposits: [
      { label: 'all', run: (db) => deposits.listProjectDeposits(db, ID, {}, { limit: 10, offset: 0 }) },
      { label: 'one unit', run: (db) => deposits.listProjectDeposits(db, ID, { unit: ID2 }, { limit: 10, offset: 0 }) },
    ],
    lockDepositBySession: (db) => deposits.lockDepositBySession(db, TEXT),
    markDepositExpired: (db) => deposits.markDepositExpired(db, ID, NOW),
    markDepositPaid: (db) => deposits.markDepositPaid(db, ID, TEXT, NOW),
    markDepositRefunded: (db) => deposits.markDepositRefunded(db, ID, TEXT, NOW),
    recordPaymentEvent: (db) => deposits.recordPaymentEvent(db, TEXT, TEXT, NOW),
  }),
  repo('src/modules/worksheets/worksheets.repo.ts', worksheets, {
    countPendingWorksheets: { rows: [{ n: 0 }], run: (db) => worksheets.countPendingWorksheets(db, ID, TEXT) },
    countProjectUnits: { rows: [{ n: 0 }], run: (db) => worksheets.countProjectUnits(db, ID, [ID, ID2]) },
    decideWorksheet: (db) => worksheets.decideWorksheet(db, ID, 'accepted', ID2, AT),
    deleteWorksheets: (db) => worksheets.deleteWorksheets(db, [ID, ID2]),
    findWorksheet: (db) => worksheets.findWorksheet(db, ID),
    findWorksheetToPush: (db) => worksheets.findWorksheetToPush(db, ID),
    insertWorksheet: {
      rows: [{ id: ID }],
      run: (db) =>
        worksheets.insertWorksheet(db, {
          id: ID,
          projectId: ID2,
          allocation: TEXT,
          buyer: {},
          choices: [ID],
          notes: TEXT,
          realtorEmail: EMAIL,
          now: AT,
        }),
    },
    listWorksheets: [
      { label: 'all', run: (db) => worksheets.listWorksheets(db, ID, { skip: 0, limit: 10 }) },
      { label: 'by status', run: (db) => worksheets.listWorksheets(db, ID, { skip: 0, limit: 10, status: 'submitted' }) },
    ],
    lockAllocationWorksheets: (db) => worksheets.lockAllocationWorksheets(db, ID, TEXT),
    toWorksheet: { noSql: 'maps a row to its record' },
  }),
  repo('src/modules/integrations/bookings.repo.ts', bookings, {
    claimBooking: { rows: [{ uid: TEXT }], run: (db) => bookings.claimBooking(db, ID, TEXT, AT) },
    findBooking: (db) => bookings.findBooking(db, ID, TEXT),
    findBookingProject: (db) => bookings.findBookingProject(db, TEXT),
    isProjectUnit: (db) => bookings.isProjectUnit(db, ID, ID2),
    linkBooking: (db) => bookings.linkBooking(db, ID, TEXT, ID2),
  }),
  repo('src/modules/integrations/integrations.repo.ts', integrations, {
    claimPush: [
      { label: 'a lead', run: (db) => integrations.claimPush(db, { leadId: ID }, TEXT, AT, AT) },
      { label: 'a worksheet', run: (db) => integrations.claimPush(db, { worksheetId: ID }, TEXT, AT, AT) },
    ],
    findProjectSettings: (db) => integrations.findProjectSettings(db, ID),
    findStates: (db) => integrations.findStates(db, ID),
    keepExternalId: (db) => integrations.keepExternalId(db, { leadId: ID }, TEXT, TEXT, AT),
    recordFailure: [
      { label: 'not connected', run: (db) => integrations.recordFailure(db, ID, TEXT, TEXT, AT, false) },
      { label: 'connection kept as it was', run: (db) => integrations.recordFailure(db, ID, TEXT, TEXT, AT, true) },
    ],
    recordSuccess: (db) => integrations.recordSuccess(db, ID, TEXT, AT),
    releasePush: (db) => integrations.releasePush(db, { leadId: ID }, TEXT),
  }),
];
