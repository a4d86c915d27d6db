import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import { PrivacyService } from '../src/modules/privacy/privacy.service.ts';
import { systemClock } from '../src/lib/clock.ts';
import { SecretBox } from '../src/lib/secret-box.ts';
import { buildTestApp, caller, publicProject, type Caller, type LoggedIn, type TestApp, useOwnerApp, userWithToken } from './helpers.ts';

/** A buyer's data: export and erasure by e-mail address, DELETE /leads/{id}, and the leads retention. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({ env: { ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0' } }, (f) => ({ t, owner, call } = f));

const BUYER = 'Buyer.One@Example.com';
const buyer = { firstName: 'Ines', lastName: 'Moreau', email: BUYER, phone: '+33 6 12 34 56 78' };
const other = { firstName: 'Olav', lastName: 'Berg', email: 'olav@example.org', phone: '+47 912 34 567' };

/** A project that mails its team and its visitors, keeps a waitlist and takes holds; the buyer enquires, holds and waits. */
async function buyerActivity(opts: { administrators?: string[]; editors?: string[] } = {}) {
  const settings = {
    enableForms: true,
    formsSendTo: 'sales@example.net',
    formsMessage: 'Thank you, we will call you.',
    waitlistEnabled: true,
    onHoldExperienceEnabled: true,
    ...(opts.administrators ? { administrators: opts.administrators } : {}),
    ...(opts.editors ? { editors: opts.editors } : {}),
  };
  const p = await publicProject(t.app, owner.auth, { settings, units: { 'A-1': {}, 'PH-1': { availability: 'sold' } } });
  const hook = await call('POST', `/projects/${p.id}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['lead.created'] });
  assert.equal(hook.statusCode, 201, hook.body);
  const post = (url: string, payload: object, address: string) => t.app.inject({ method: 'POST', url, payload, remoteAddress: address });
  assert.equal((await post('/public/leads', { project: p.id, ...buyer, message: 'Is A-1 still free?' }, '192.0.2.10')).statusCode, 201);
  assert.equal((await post('/public/leads', { project: p.id, ...other, message: 'Brochure please' }, '192.0.2.11')).statusCode, 201);
  const hold = await post(`/public/units/${p.units['A-1']}/hold`, buyer, '192.0.2.10');
  assert.equal(hold.statusCode, 200, hold.body);
  const wait = await post('/public/waitlist', { project: p.id, ...buyer, email: BUYER.toUpperCase(), unit: p.units['PH-1'] }, '192.0.2.10');
  assert.equal(wait.statusCode, 201, wait.body);
  return p;
}

const exportAs = (c: Caller, body: object) => c('POST', '/privacy/export', body);

describe('POST /privacy/export', () => {
  test('one JSON file of everything held about the address (any case), in the caller’s projects only; logged without the address', async () => {
    const p = await buyerActivity();
    const res = await exportAs(call, { email: 'buyer.one@example.COM' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="buyer-data.json"/);
    const doc = res.json();
    assert.equal(doc.email, 'buyer.one@example.com');
    assert.deepEqual(doc.leads.map((l: { source: string }) => l.source).sort(), ['hold', 'presentation']);
    assert.equal(doc.waitlist.length, 1);
    assert.equal(doc.waitlist[0].unit, p.units['PH-1']);
    assert.equal(doc.holds.length, 1);
    assert.equal(doc.holds[0].unit, p.units['A-1']);
    assert.equal(doc.holds[0].releasedAt, null);
    // The team's notices and the visitor's confirmations of both forms, and the hold mail: all name the buyer.
    assert.ok(doc.mail.length >= 4, JSON.stringify(doc.mail.map((m: { subject: string }) => m.subject)));
    assert.ok(
      doc.mail.every((m: { text: string; to: string[] }) => (m.text + m.to.join()).toLowerCase().includes('buyer.one@example.com') || m.to.includes(BUYER)),
    );
    assert.ok(doc.events.length >= 2 && doc.events.every((e: { type: string }) => e.type === 'lead.created'));
    assert.ok(doc.webhookDeliveries.length >= 2);
    assert.ok(!JSON.stringify(doc).includes('olav@example.org'), 'another visitor is not in the export');

    const audit = (await call('GET', '/audit?filters[action]=buyer_data_exported')).json();
    assert.equal(audit.length, 1);
    assert.equal(audit[0].detail.leads, 2);
    assert.ok(!JSON.stringify(audit).toLowerCase().includes('buyer.one'), 'the audit log keeps a digest, never the address');
  });

  test('a stranger finds nothing; with `project`: a stranger 404, an editor 403, an administrator reads it; bad input 400 naming the field', async () => {
    const [administrator, editor, stranger] = [await userWithToken(t), await userWithToken(t), await userWithToken(t)];
    const p = await buyerActivity({ administrators: [administrator.id], editors: [editor.id] });
    const none = (await exportAs(caller(t.app, stranger.auth), { email: BUYER })).json();
    assert.deepEqual([none.leads, none.waitlist, none.holds, none.mail, none.events], [[], [], [], [], []]);
    assert.equal((await exportAs(caller(t.app, stranger.auth), { email: BUYER, project: p.id })).statusCode, 404);
    assert.equal((await exportAs(caller(t.app, editor.auth), { email: BUYER, project: p.id })).statusCode, 403);
    const byAdmin = await exportAs(caller(t.app, administrator.auth), { email: BUYER, project: p.id });
    assert.equal(byAdmin.json().leads.length, 2);
    for (const [body, path] of [
      [{ email: 'not-an-address' }, '/email'],
      [{}, '/email'],
      [{ email: BUYER, project: 'nope' }, '/project'],
    ] as const) {
      const bad = await exportAs(call, body);
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
      assert.ok(
        bad.json().errors.some((e: { path: string }) => e.path === path),
        bad.body,
      );
    }
    assert.equal((await t.app.inject({ method: 'POST', url: '/privacy/export', payload: { email: BUYER } })).statusCode, 401);
  });
});

describe('POST /privacy/erase', () => {
  test('leads, waitlist, ended holds, worksheets, mail and stored answers go; events and webhook payloads are redacted; others are untouched', async () => {
    const solo = await buildTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '0', HOLD_SWEEP_SEC: '0' } });
    const saved = { t, owner, call };
    try {
      t = solo;
      owner = await userWithToken(t);
      call = caller(t.app, owner.auth);
      const p = await buyerActivity();
      // Some mail is sent (written to DATA_DIR/mail without SMTP), the rest stays queued: both must go.
      await t.app.outbox.drain();
      const mailDir = join(t.config.dataDir, 'mail');
      const namesBuyer = async () => {
        const files = await readdir(mailDir).catch(() => [] as string[]);
        const texts = await Promise.all(files.map((f) => readFile(join(mailDir, f), 'utf8')));
        return texts.filter((x) => x.toLowerCase().includes('buyer.one@example.com')).length;
      };
      assert.ok((await namesBuyer()) > 0);

      const res = await call('POST', '/privacy/erase', { email: BUYER });
      assert.equal(res.statusCode, 200, res.body);
      const { erased } = res.json();
      assert.deepEqual([erased.leads, erased.waitlist, erased.holds], [2, 1, 1]);
      assert.ok(erased.mail >= 4 && erased.events >= 2 && erased.webhookDeliveries >= 2, res.body);

      const leads = (await call('GET', `/leads?project=${p.id}`)).json();
      assert.deepEqual(
        leads.map((l: { email: string }) => l.email),
        ['olav@example.org'],
      );
      const log = (await call('GET', `/projects/${p.id}/events?limit=1000`)).json();
      const text = JSON.stringify(log).toLowerCase();
      assert.ok(!text.includes('buyer.one') && !text.includes('moreau'), 'no event names the buyer');
      assert.ok(text.includes('olav@example.org'), "the other visitor's events are intact");
      // The hold still holds its unit (it ends as any hold does), linked to nobody.
      const unit = (await call('GET', `/units/${p.units['A-1']}`)).json();
      assert.equal(unit.availability, 'on_hold');
      assert.equal(
        await namesBuyer(),
        0,
        `the mail files naming the buyer are gone: ${(await readdir(mailDir)).join()} ${JSON.stringify(await t.app.outbox.jobs('mail'))}`,
      );

      const again = (await exportAs(call, { email: BUYER })).json();
      assert.deepEqual([again.leads, again.waitlist, again.holds, again.mail, again.events, again.webhookDeliveries], [[], [], [], [], [], []]);
      const second = (await call('POST', '/privacy/erase', { email: BUYER })).json().erased;
      assert.ok(
        Object.values(second).every((n) => n === 0),
        JSON.stringify(second),
      );
      // Nothing queued for the buyer is sent after the erasure.
      await t.app.outbox.drain();
      assert.equal(await namesBuyer(), 0);
      const audit = (await call('GET', '/audit?filters[action]=buyer_data_erased')).json();
      assert.equal(audit.length, 2);
      assert.equal(audit[1].detail.leads, 2);
      assert.equal(audit[0].detail.address, audit[1].detail.address, 'the same address has the same digest');
    } finally {
      ({ t, owner, call } = saved);
      await solo.close();
    }
  });
});

describe('DELETE /leads/{id}', () => {
  test('owner and administrators delete (204, then 404); editors 403; a stale If-Match 412; its events redacted; logged', async () => {
    const [administrator, editor] = [await userWithToken(t), await userWithToken(t)];
    const p = await publicProject(t.app, owner.auth, { settings: { enableForms: true, administrators: [administrator.id], editors: [editor.id] }, units: {} });
    const posted = await t.app.inject({ method: 'POST', url: '/public/leads', payload: { project: p.id, ...other }, remoteAddress: '192.0.2.12' });
    const id = posted.json()._id;
    assert.equal((await caller(t.app, editor.auth)('DELETE', `/leads/${id}`)).statusCode, 403);
    assert.equal((await call('DELETE', `/leads/${id}`, undefined, { 'if-match': '"7"' })).statusCode, 412);
    assert.equal((await call('DELETE', `/leads/${newObjectId()}`)).statusCode, 404);
    const res = await caller(t.app, administrator.auth)('DELETE', `/leads/${id}`, undefined, { 'if-match': '"1"' });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await call('DELETE', `/leads/${id}`)).statusCode, 404);
    assert.deepEqual((await call('GET', `/leads?project=${p.id}`)).json(), []);
    const log = JSON.stringify((await call('GET', `/projects/${p.id}/events`)).json());
    assert.ok(!log.includes('olav@example.org'), log);
    const audit = (await call('GET', `/audit?filters[action]=lead_deleted&filters[project]=${p.id}`)).json();
    assert.deepEqual(
      audit.map((a: { subject: string; actor: { _id: string } }) => [a.subject, a.actor._id]),
      [[id, administrator.id]],
    );
  });
});

describe('LEADS_RETENTION_MONTHS', () => {
  test('leads older than N months are erased by the retention pass (as DELETE would), younger ones kept; 0 keeps all', async () => {
    const p = await publicProject(t.app, owner.auth, { units: { 'B-1': {} } });
    const now = Date.now();
    const old = await insertLead(t.db.kysely, {
      id: newObjectId(),
      projectId: p.id,
      data: { ...other, source: 'presentation' },
      createdAt: new Date(now - 400 * 86_400_000),
    });
    const young = await insertLead(t.db.kysely, {
      id: newObjectId(),
      projectId: p.id,
      data: { ...buyer, source: 'presentation' },
      createdAt: new Date(now - 20 * 86_400_000),
    });
    const service = (months: number) =>
      new PrivacyService({ db: t.db, clock: systemClock, config: { ...t.config, leadsRetentionMonths: months }, secrets: new SecretBox(t.config.secretKey) });
    assert.equal(await service(0).pruneLeads(), 0);
    const pruned = await service(12).pruneLeads();
    assert.ok(pruned >= 1);
    const left = (await call('GET', `/leads?project=${p.id}`)).json().map((l: { _id: string }) => l._id);
    assert.deepEqual(left, [young.id]);
    assert.ok(!left.includes(old.id));
    const audit = (await call('GET', '/audit?filters[action]=leads_expired')).json();
    assert.equal(audit[0].detail.olderThanMonths, 12);
  });
});
