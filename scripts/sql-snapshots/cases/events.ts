import { Buffer } from 'node:buffer';
import * as events from '../../../src/modules/events/events.repo.ts';
import type { NewEvent } from '../../../src/modules/events/event-model.ts';
import * as ingest from '../../../src/modules/insights/ingest.repo.ts';
import * as insights from '../../../src/modules/insights/insights.repo.ts';
import * as idempotency from '../../../src/modules/shared/idempotency.repo.ts';
import * as list from '../../../src/modules/shared/list.repo.ts';
import * as webhooks from '../../../src/modules/webhooks/webhooks.repo.ts';
import * as outbox from '../../../src/outbox/outbox.repo.ts';
import { repo } from '../record.ts';
import { AT, DAY, EMAIL, ID, ID2, NOW, TEXT } from '../dummies.ts';

const range = { from: DAY, to: DAY };
const stored = {
  projectId: ID,
  day: DAY,
  at: AT,
  visitor: Buffer.from(TEXT),
  unitId: ID2,
  path: TEXT,
  referrer: TEXT,
  utmSource: TEXT,
  utmMedium: TEXT,
  utmCampaign: TEXT,
  source: TEXT,
};
const event: Omit<NewEvent, 'projectId'> = {
  type: 'unit.updated',
  actor: { kind: 'user', id: ID2 },
  subjectId: ID2,
  changes: { name: [TEXT, TEXT] },
  now: NOW,
};

export default [
  repo('src/modules/events/events.repo.ts', events, {
    appendEvent: [
      { label: 'without webhooks', rows: [{ seq: '1', hooked: false }], run: (db) => events.appendEvent(db, { ...event, projectId: ID }) },
      {
        label: 'asking whether the project has a webhook',
        rows: [{ seq: '1', hooked: false }],
        run: (db) => events.appendEvent(db, { ...event, projectId: ID }, { hooked: true }),
      },
    ],
    appendEvents: { rows: [{ last: '2', hooked: false }], run: (db) => events.appendEvents(db, ID, [event, event], { hooked: true }) },
    lastSeq: (db) => events.lastSeq(db, ID),
    listEvents: [
      { label: 'without lead events', run: (db) => events.listEvents(db, ID, { after: 0, limit: 10, withLeads: false }) },
      { label: 'with lead events, of these types', run: (db) => events.listEvents(db, ID, { after: 0, limit: 10, withLeads: true, types: ['unit.updated'] }) },
    ],
    listSubjectEvents: [
      { label: 'newest first', run: (db) => events.listSubjectEvents(db, ID, { limit: 10 }) },
      { label: 'before a seq', run: (db) => events.listSubjectEvents(db, ID, { before: 5, limit: 10 }) },
    ],
    redactPersonalEvents: (db) => events.redactPersonalEvents(db, [ID, ID2]),
    toEvent: { noSql: 'maps a row to its record' },
  }),
  repo('src/modules/webhooks/webhooks.repo.ts', webhooks, {
    deleteWebhook: [
      { label: 'any version', run: (db) => webhooks.deleteWebhook(db, ID) },
      { label: 'If-Match', run: (db) => webhooks.deleteWebhook(db, ID, 3) },
    ],
    findDeliveryForAttempt: (db) => webhooks.findDeliveryForAttempt(db, ID),
    findDeliveryTurn: (db) => webhooks.findDeliveryTurn(db, ID),
    findEarlierPending: (db) => webhooks.findEarlierPending(db, ID, '5'),
    findHeadPending: (db) => webhooks.findHeadPending(db, ID),
    findWebhook: (db) => webhooks.findWebhook(db, ID, ID2),
    insertAttempt: (db) => webhooks.insertAttempt(db, { deliveryId: ID, at: AT, responseStatus: 200, error: null, durationMs: 1, manual: false }),
    insertDeliveries: (db) => webhooks.insertDeliveries(db, [ID], [{ id: ID2, seq: 1, type: 'unit.updated' }], AT),
    insertWebhook: {
      rows: [{ id: ID }],
      run: (db) => webhooks.insertWebhook(db, { id: ID, projectId: ID2, url: TEXT, events: ['*'], description: null, secret: TEXT }),
    },
    listDeliveries: [
      { label: 'newest first', run: (db) => webhooks.listDeliveries(db, ID, { limit: 10 }) },
      { label: 'before a seq, one delivery', run: (db) => webhooks.listDeliveries(db, ID, { before: 5, limit: 10, id: ID2 }) },
    ],
    listWebhooks: (db) => webhooks.listWebhooks(db, ID),
    lockSubscribedWebhooks: (db) => webhooks.lockSubscribedWebhooks(db, ID, ['unit.updated']),
    lockWebhook: (db) => webhooks.lockWebhook(db, ID),
    settleDelivery: [
      { label: 'delivered', run: (db) => webhooks.settleDelivery(db, ID, 'delivered', AT) },
      { label: 'failed', run: (db) => webhooks.settleDelivery(db, ID, 'failed', AT) },
    ],
    toDelivery: { noSql: 'maps a row to its record' },
    toWebhook: { noSql: 'maps a row to its record' },
    updateWebhook: (db) => webhooks.updateWebhook(db, ID, { url: TEXT, description: null }, { at: NOW, ifVersion: 3 }),
  }),
  repo('src/modules/insights/insights.repo.ts', insights, {
    claimDueReports: { rows: [{ locked: true }], run: (db) => insights.claimDueReports(db, DAY, AT) },
    countLeadPeople: (db) => insights.countLeadPeople(db, ID, range, []),
    countLeadsByDay: (db) => insights.countLeadsByDay(db, ID, range, ['%@example.com']),
    countLeadsBySource: (db) => insights.countLeadsBySource(db, ID, range, []),
    countUnitsByStatus: (db) => insights.countUnitsByStatus(db, ID),
    findDaily: (db) => insights.findDaily(db, ID, range),
    findInsightsProject: (db) => insights.findInsightsProject(db, ID),
    findSources: (db) => insights.findSources(db, ID, range, 10),
    findUnitInsights: (db) => insights.findUnitInsights(db, ID, range, ['%@example.com']),
    findUnitsSoldOrReserved: (db) => insights.findUnitsSoldOrReserved(db, ID, range),
    forgetReportClaims: (db) => insights.forgetReportClaims(db, DAY),
  }),
  repo('src/modules/insights/ingest.repo.ts', ingest, {
    deleteOldEvents: { rows: [{ locked: true }], run: (db) => ingest.deleteOldEvents(db, AT, 10) },
    ensureSalt: { rows: [{ salt: Buffer.from(TEXT) }], run: (db) => ingest.ensureSalt(db, DAY, Buffer.from(TEXT)) },
    findEventsProject: (db) => ingest.findEventsProject(db, TEXT),
    forgetSalts: (db) => ingest.forgetSalts(db, DAY),
    recordEvent: [
      { label: 'a page view', run: (db) => ingest.recordEvent(db, { ...stored, type: 'page_view' }) },
      { label: 'a unit view', run: (db) => ingest.recordEvent(db, { ...stored, type: 'unit_view' }) },
    ],
    recordEventSql: () => ingest.recordEventSql({ ...stored, type: 'plan_view' }),
  }),
  repo('src/outbox/outbox.repo.ts', outbox, {
    countJobs: (db) => outbox.countJobs(db),
    deleteJobs: (db) => outbox.deleteJobs(db, [ID, ID2]),
    findJobs: [
      { label: "a kind's jobs", run: (db) => outbox.findJobs(db, TEXT) },
      { label: 'by key', run: (db) => outbox.findJobs(db, TEXT, TEXT) },
    ],
    lockStart: (db) => outbox.lockStart(db),
    mailJobsPage: (db) => outbox.mailJobsPage(db, TEXT, ID, 10),
    releaseJobs: (db) => outbox.releaseJobs(db, TEXT, [ID]),
    unlockStart: (db) => outbox.unlockStart(db),
  }),
  repo('src/modules/shared/idempotency.repo.ts', idempotency, {
    claimIdempotencyKey: (db) => idempotency.claimIdempotencyKey(db, TEXT, TEXT, TEXT),
    findIdempotencyRecord: { rows: [{ request_hash: TEXT, status: 200, body: null }], run: (db) => idempotency.findIdempotencyRecord(db, TEXT, TEXT) },
    forgetIdempotencyKeys: (db) => idempotency.forgetIdempotencyKeys(db, AT),
    forgetPublicAnswers: (db) => idempotency.forgetPublicAnswers(db, EMAIL),
    storeIdempotentOutcome: (db) => idempotency.storeIdempotentOutcome(db, TEXT, TEXT, 200, {}),
  }),
  repo('src/modules/shared/list.repo.ts', list, {
    pageWithTotal: { noSql: "pages with the caller's statement (listProjects, listGroups show it)" },
    visibleList: [
      {
        label: "a user's records, by name",
        run: (db) =>
          list.visibleList(
            db.selectFrom('projects as p').select('p.id'),
            'p',
            { all: false, since: false, sort: 'name' },
            { me: ID, since: undefined, skip: 0, limit: 10 },
          ),
      },
      {
        label: 'an administrator, updatedSince, newest first',
        run: (db) =>
          list.visibleList(
            db.selectFrom('groups as g').select('g.id'),
            'g',
            { all: true, since: true, sort: '-createdAt' },
            { me: ID, since: AT, skip: 0, limit: 10 },
          ),
      },
    ],
    visibleShape: { noSql: 'what decides the text of a visible list (visibleList shows each shape)' },
    visibleValues: { noSql: 'the values of a visible list, passed as parameters' },
  }),
];
