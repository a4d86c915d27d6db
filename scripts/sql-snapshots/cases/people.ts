import * as billing from '../../../src/modules/billing/billing.repo.ts';
import * as audit from '../../../src/modules/audit/audit.repo.ts';
import * as invites from '../../../src/modules/invites/invites.repo.ts';
import * as privacy from '../../../src/modules/privacy/privacy.repo.ts';
import * as team from '../../../src/modules/team/team.repo.ts';
import * as tokens from '../../../src/modules/tokens/tokens.repo.ts';
import * as passwordReset from '../../../src/modules/users/password-reset.repo.ts';
import * as sessions from '../../../src/modules/users/sessions.repo.ts';
import * as users from '../../../src/modules/users/users.repo.ts';
import { repo } from '../record.ts';
import { AT, EMAIL, ID, ID2, NOW, TEXT } from '../dummies.ts';

export default [
  repo('src/modules/billing/billing.repo.ts', billing, {
    claimLapsed: (db) => billing.claimLapsed(db, AT, 10),
    countPublished: [
      { label: 'all', rows: [{ n: 0 }], run: (db) => billing.countPublished(db, ID) },
      { label: 'but one', rows: [{ n: 0 }], run: (db) => billing.countPublished(db, ID, ID2) },
    ],
    findSubscription: [
      { label: 'read', run: (db) => billing.findSubscription(db, ID) },
      { label: 'locked', run: (db) => billing.findSubscription(db, ID, true) },
    ],
    markPaymentWarned: (db) => billing.markPaymentWarned(db, ID, AT),
    publishedProjectNames: (db) => billing.publishedProjectNames(db, ID),
    upsertSubscription: {
      rows: [{ user_id: ID }],
      run: (db) =>
        billing.upsertSubscription(db, {
          userId: ID,
          customerId: TEXT,
          subscriptionId: TEXT,
          itemId: TEXT,
          priceId: TEXT,
          plan: TEXT,
          status: TEXT,
          trialEnd: AT,
          currentPeriodEnd: AT,
          cancelAtPeriodEnd: false,
          clearLapse: true,
          at: AT,
        }),
    },
  }),
  repo('src/modules/users/users.repo.ts', users, {
    findUserByPaymentsCustomer: (db) => users.findUserByPaymentsCustomer(db, TEXT),
    findCircle: (db) => users.findCircle(db, ID, EMAIL, AT),
    findMemberships: (db) => users.findMemberships(db, ID),
    findNamespacesLike: (db) => users.findNamespacesLike(db, TEXT),
    findUserById: (db) => users.findUserById(db, ID),
    findUserByPaymentsAccount: (db) => users.findUserByPaymentsAccount(db, TEXT),
    findUserByUsername: (db) => users.findUserByUsername(db, EMAIL),
    insertUser: { rows: [{ id: ID }], run: (db) => users.insertUser(db, { id: ID, username: EMAIL, passwordHash: TEXT, role: 'user', profile: {} }) },
    listAccounts: (db) => users.listAccounts(db, { q: TEXT, active: true, skip: 0, limit: 10 }),
    mergeUserProfile: [
      { label: 'profile fields', run: (db) => users.mergeUserProfile(db, ID, { name: TEXT }, undefined, { at: NOW, ifVersion: 3 }) },
      { label: 'and a new password', run: (db) => users.mergeUserProfile(db, ID, { name: TEXT }, TEXT, { at: NOW }) },
    ],
    setAccountActive: [
      { label: 'deactivated', run: (db) => users.setAccountActive(db, ID, false, AT, 3) },
      { label: 'reactivated', run: (db) => users.setAccountActive(db, ID, true, AT) },
    ],
    setUserPassword: (db) => users.setUserPassword(db, ID, TEXT, NOW),
    toUser: { noSql: 'maps a row to its record' },
  }),
  repo('src/modules/users/sessions.repo.ts', sessions, {
    consumeRefreshToken: (db) => sessions.consumeRefreshToken(db, TEXT, AT),
    createSession: (db) => sessions.createSession(db, { id: ID, userId: ID2, impersonatorId: null, expiresAt: AT }),
    extendSession: (db) => sessions.extendSession(db, ID, AT),
    findRefreshToken: (db) => sessions.findRefreshToken(db, TEXT),
    findSessionPrincipal: (db) => sessions.findSessionPrincipal(db, ID, AT),
    insertRefreshToken: (db) => sessions.insertRefreshToken(db, { tokenHash: TEXT, sessionId: ID, expiresAt: AT }),
    notifySessionsEnded: (db) => sessions.notifySessionsEnded(db, ID),
    revokeSession: (db) => sessions.revokeSession(db, ID, AT),
    revokeUserSessions: (db) => sessions.revokeUserSessions(db, ID, AT),
  }),
  repo('src/modules/users/password-reset.repo.ts', passwordReset, {
    claimPasswordReset: (db) => passwordReset.claimPasswordReset(db, TEXT, AT),
    countResetsSince: { rows: [{ n: 0 }], run: (db) => passwordReset.countResetsSince(db, EMAIL, AT) },
    insertPasswordReset: (db) => passwordReset.insertPasswordReset(db, { tokenHash: TEXT, userId: ID, username: EMAIL, createdAt: AT, expiresAt: AT }),
    spendUserResets: (db) => passwordReset.spendUserResets(db, ID, AT),
  }),
  repo('src/modules/tokens/tokens.repo.ts', tokens, {
    countApiTokens: { rows: [{ n: '0' }], run: (db) => tokens.countApiTokens(db, ID) },
    deleteApiToken: (db) => tokens.deleteApiToken(db, ID, ID2),
    deleteUserApiTokens: (db) => tokens.deleteUserApiTokens(db, ID),
    findApiTokenPrincipal: (db) => tokens.findApiTokenPrincipal(db, TEXT, AT),
    insertApiToken: {
      rows: [{ id: ID }],
      run: (db) => tokens.insertApiToken(db, { id: ID, userId: ID2, name: TEXT, scope: 'read', tokenHash: TEXT, createdAt: AT, expiresAt: null }),
    },
    listApiTokens: (db) => tokens.listApiTokens(db, ID),
    lockUser: (db) => tokens.lockUser(db, ID),
    toApiToken: { noSql: 'maps a row to its record' },
    touchApiToken: (db) => tokens.touchApiToken(db, ID, AT, AT),
  }),
  repo('src/modules/team/team.repo.ts', team, {
    findTeamAccounts: (db) => team.findTeamAccounts(db, [ID, ID2]),
  }),
  repo('src/modules/invites/invites.repo.ts', invites, {
    findInviteByToken: [
      { label: 'a read', run: (db) => invites.findInviteByToken(db, TEXT) },
      { label: 'locked', run: (db) => invites.findInviteByToken(db, TEXT, { lock: true }) },
    ],
    findTarget: [
      { label: 'a project', run: (db) => invites.findTarget(db, 'project', ID) },
      { label: 'a group', run: (db) => invites.findTarget(db, 'group', ID) },
    ],
    hasOpenInvite: (db) => invites.hasOpenInvite(db, EMAIL, AT),
    insertInvite: {
      rows: [{ id: ID }],
      run: (db) =>
        invites.insertInvite(db, {
          id: ID,
          tokenHash: TEXT,
          kind: 'project',
          targetId: ID2,
          email: EMAIL,
          level: 'editor',
          invitedBy: ID2,
          createdAt: AT,
          expiresAt: AT,
        }),
    },
    markAccepted: (db) => invites.markAccepted(db, ID, ID2, AT),
    revokeInvite: (db) => invites.revokeInvite(db, 'group', ID, ID2, AT),
    toInvite: { noSql: 'maps a row to its record' },
  }),
  repo('src/modules/audit/audit.repo.ts', audit, {
    listAudit: (db) => audit.listAudit(db, { ownerId: ID, actor: ID2, action: TEXT, projectId: ID, from: AT, to: AT, skip: 0, limit: 10 }),
    pruneAudit: (db) => audit.pruneAudit(db, AT),
    recordAudit: (db) => audit.recordAudit(db, { actor: { id: ID, address: TEXT }, action: 'sign_in', subjectId: ID2, at: AT }),
  }),
  repo('src/modules/privacy/privacy.repo.ts', privacy, {
    eraseLeads: (db) => privacy.eraseLeads(db, [ID, ID2]),
    findBuyerLeads: [
      { label: 'every project', run: (db) => privacy.findBuyerLeads(db, EMAIL, { all: true }) },
      { label: 'these projects', run: (db) => privacy.findBuyerLeads(db, EMAIL, { ids: [ID] }) },
    ],
    findBuyerWorksheets: (db) => privacy.findBuyerWorksheets(db, EMAIL, { ids: [ID] }),
    findEventDeliveries: (db) => privacy.findEventDeliveries(db, [ID, ID2]),
    findLeadHolds: (db) => privacy.findLeadHolds(db, [ID, ID2]),
    findLeadsBefore: (db) => privacy.findLeadsBefore(db, AT, 10),
    findPersonalEvents: (db) => privacy.findPersonalEvents(db, [ID, ID2]),
    leadProjects: (db) => privacy.leadProjects(db, ID),
  }),
];
