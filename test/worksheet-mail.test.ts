import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AddressObject } from 'mailparser';
import { buildTestApp, caller, createUser, publicProject, userWithToken, type TestApp } from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

/** Worksheet mail both ways: to the sales team when one arrives, to the realtor when it is decided. */
const buyer = { firstName: 'Bea', lastName: 'Buyer', email: 'bea@example.com', phone: '+1 555 0102' };
const addresses = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address));

describe('worksheet mail', () => {
  let smtp: Smtp;
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  let opener = 0;
  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({ env: { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0', PUBLIC_URL: 'https://console.example', HOLD_SWEEP_SEC: '0' } });
    owner = await userWithToken(t);
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  async function deliver() {
    const before = smtp.received.length;
    const attempts = await t.app.outbox.drain();
    await smtp.waitFor(before + attempts);
    return smtp.received.slice(before);
  }

  async function launch(settings: Record<string, unknown> = {}) {
    const admin = await createUser(t.db);
    const { id, namespace, units } = await publicProject(t.app, owner.auth, {
      name: 'Harbour View',
      settings: { administrators: [admin.id], ...settings },
      units: { 'A-1': {}, 'A-2': {} },
    });
    const call = caller(t.app, owner.auth);
    const allocations = [{ name: 'North Realty', password: 'north-secret-1', allocation: 'A-1' }];
    assert.equal((await call('PATCH', `/projects/${id}`, { allocations })).statusCode, 200);
    const opened = await t.app.inject({
      method: 'POST',
      url: '/public/allocations/open',
      payload: { namespace, password: 'north-secret-1' },
      remoteAddress: `203.0.113.${++opener}`,
    });
    const token = opened.json().token as string;
    await deliver();
    const submit = (body: object) => t.app.inject({ method: 'POST', url: '/public/worksheets', payload: body, headers: { 'x-allocation-token': token } });
    return { id, units, admin, call, submit };
  }

  test('a worksheet mails the owner and administrators (no formsSendTo): the realtor, the buyer, the choices by name, the console link', async () => {
    const { id, units, admin, submit } = await launch();
    const res = await submit({ buyer, choices: [units['A-2'], units['A-1']], notes: 'Pre-approved', realtorEmail: 'nora@north.example' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().realtorEmail, 'nora@north.example');
    const [mail, ...rest] = await deliver();
    assert.equal(rest.length, 0);
    assert.deepEqual(mail!.rcptTo.sort(), [admin.username, owner.username].sort());
    const m = mail!.parsed;
    assert.equal(m.subject, 'New worksheet from North Realty: Harbour View');
    assert.deepEqual(addresses(m.replyTo), ['nora@north.example']);
    const text = m.text ?? '';
    for (const line of [
      'North Realty submitted a worksheet on Harbour View for Bea Buyer.',
      'Buyer: Bea Buyer, bea@example.com, +1 555 0102',
      'Choices, in order of preference:\n1. A-2\n2. A-1',
      'Notes: Pre-approved',
      `Accept or decline it in the console: https://console.example/admin/projects/${id}/launch`,
    ]) {
      assert.ok(text.includes(line), `${line} in\n${text}`);
    }
    assert.match(m.html || '', /Choices, in order of preference:<br>1\. A-2<br>2\. A-1/);
  });

  test('with formsSendTo the notice goes there instead; a decision mails the realtor: accepted with the unit, declined; none without realtorEmail', async () => {
    const { units, call, submit } = await launch({ formsSendTo: 'sales@example.com' });
    const first = (await submit({ buyer, choices: [units['A-1']], realtorEmail: 'nora@north.example' })).json();
    const second = (await submit({ buyer: { ...buyer, firstName: 'Sam' }, choices: [units['A-2']], realtorEmail: 'nora@north.example' })).json();
    const third = (await submit({ buyer: { ...buyer, firstName: 'Quinn' }, choices: [units['A-2']] })).json();
    const notices = await deliver();
    assert.deepEqual(
      notices.map((n) => n.rcptTo),
      [['sales@example.com'], ['sales@example.com'], ['sales@example.com']],
    );
    const quinn = notices.find((n) => (n.parsed.text ?? '').includes('Quinn Buyer'));
    assert.deepEqual(addresses(quinn!.parsed.replyTo), [], 'no Reply-To without the realtor’s e-mail');

    assert.equal((await call('PATCH', `/worksheets/${first._id}`, { status: 'accepted', unit: units['A-1'] })).statusCode, 200);
    const [accepted, ...none] = await deliver();
    assert.equal(none.length, 0);
    assert.deepEqual(accepted!.rcptTo, ['nora@north.example']);
    assert.equal(accepted!.parsed.subject, 'Worksheet accepted: A-1 for Bea Buyer (Harbour View)');
    assert.ok((accepted!.parsed.text ?? '').includes('Your worksheet for Bea Buyer on Harbour View was accepted: unit A-1 is reserved for them.'));

    assert.equal((await call('PATCH', `/worksheets/${second._id}`, { status: 'declined' })).statusCode, 200);
    const [declined] = await deliver();
    assert.deepEqual(declined!.rcptTo, ['nora@north.example']);
    assert.equal(declined!.parsed.subject, 'Worksheet declined: Sam Buyer (Harbour View)');

    assert.equal((await call('PATCH', `/worksheets/${third._id}`, { status: 'declined' })).statusCode, 200);
    assert.equal((await deliver()).length, 0, 'no realtor e-mail, no decision mail');
  });

  test('in the project’s language: a French project’s notice and decision in French, a Spanish one’s in Spanish', async () => {
    for (const c of [
      {
        lang: 'fr',
        subject: 'Nouvelle fiche de réservation de North Realty : Harbour View',
        line: 'North Realty a soumis une fiche de réservation pour Harbour View au nom de Bea Buyer.',
        choices: 'Choix, par ordre de préférence :',
        decision: 'Fiche acceptée : A-1 pour Bea Buyer (Harbour View)',
      },
      {
        lang: 'es',
        subject: 'Nueva hoja de reserva de North Realty: Harbour View',
        line: 'North Realty envió una hoja de reserva de Harbour View para Bea Buyer.',
        choices: 'Opciones, por orden de preferencia:',
        decision: 'Hoja aceptada: A-1 para Bea Buyer (Harbour View)',
      },
    ]) {
      const { units, call, submit } = await launch({ projectLang: c.lang, formsSendTo: 'sales@example.com' });
      const ws = (await submit({ buyer, choices: [units['A-1']], realtorEmail: 'nora@north.example' })).json();
      const [notice] = await deliver();
      assert.equal(notice!.parsed.subject, c.subject);
      assert.ok((notice!.parsed.text ?? '').includes(c.line), notice!.parsed.text);
      assert.ok((notice!.parsed.text ?? '').includes(c.choices), notice!.parsed.text);
      assert.match(notice!.parsed.html || '', new RegExp(`<html lang="${c.lang}"`));
      assert.equal((await call('PATCH', `/worksheets/${ws._id}`, { status: 'accepted', unit: units['A-1'] })).statusCode, 200);
      const [decided] = await deliver();
      assert.equal(decided!.parsed.subject, c.decision);
    }
  });

  test('an invalid realtorEmail → 400 at /realtorEmail', async () => {
    const { units, submit } = await launch();
    const res = await submit({ buyer, choices: [units['A-1']], realtorEmail: 'not-an-address' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].path, '/realtorEmail');
  });
});
