import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AddressObject } from 'mailparser';
import { buildTestApp, caller, createProject, createUnit, userWithToken, type TestApp } from './helpers.ts';
import { startSmtp, type Smtp } from './smtp.ts';

const visitor = { firstName: 'Chloé', lastName: "O'Brien", email: 'chloe@example.com', phone: '+33 6 12 34 56 78' };
const addresses = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address));

describe('lead and hold mail: content and headers', () => {
  let smtp: Smtp;
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({ env: { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '0', MAIL_FROM: 'Showsuite Mail <mail@showsuite.test>' } });
    owner = await userWithToken(t);
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  /** Sends what is queued and returns the messages that arrived meanwhile. */
  async function deliver() {
    const before = smtp.received.length;
    const attempts = await t.app.outbox.drain();
    await smtp.waitFor(before + attempts);
    return smtp.received.slice(before);
  }

  test('formsSendTo takes a comma-separated list, each address checked', async () => {
    const p = await createProject(t.app, owner.auth);
    const call = caller(t.app, owner.auth);
    const ok = await call('PATCH', `/project/${p._id}`, { formsSendTo: 'a@example.com, b@example.org,c@example.net' });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().formsSendTo, 'a@example.com, b@example.org,c@example.net');
    for (const bad of ['a@example.com, nope', 'a@example.com,,b@example.com', ' ', 'a@example.com;b@example.com']) {
      const res = await call('PATCH', `/project/${p._id}`, { formsSendTo: bad });
      assert.equal(res.statusCode, 400, bad);
      assert.deepEqual(res.json().errors, [{ path: '/formsSendTo', message: 'must be one or more e-mail addresses separated by commas' }]);
    }
  });

  test('a public lead mails every formsSendTo address: subject, sender name, Reply-To the visitor, every field, the unit by name; text and HTML', async () => {
    const p = await createProject(t.app, owner.auth, {
      name: 'Harbour <View>',
      body: { enableForms: true, formsSendTo: 'sales@example.com, manager@example.org', formsSubject: 'Harbour enquiry', formsFromName: 'Harbour Sales' },
    });
    const unit = await createUnit(t.app, owner.auth, p._id, { name: 'PH-2' });
    const lead = {
      project: p._id,
      ...visitor,
      unit: unit._id,
      message: 'Is there parking?\nTwo cars.',
      source: 'brochure',
      questions: [{ question: 'Budget', answer: '1M' }],
      customFields: [
        { key: 'moveIn', value: '2027' },
        { key: 'pets', value: 'a cat' },
      ],
    };
    const res = await caller(t.app)('POST', '/public/leads', lead);
    assert.equal(res.statusCode, 201);
    const [mail, ...rest] = await deliver();
    assert.equal(rest.length, 0, 'no visitor confirmation without formsMessage');
    assert.deepEqual(mail!.rcptTo.sort(), ['manager@example.org', 'sales@example.com']);
    const m = mail!.parsed;
    assert.equal(m.subject, 'Harbour enquiry');
    assert.deepEqual(m.from?.value, [{ name: 'Harbour Sales', address: 'mail@showsuite.test' }]);
    assert.deepEqual(addresses(m.replyTo), ['chloe@example.com']);
    assert.deepEqual(addresses(m.to).sort(), ['manager@example.org', 'sales@example.com']);
    assert.match(m.messageId ?? '', /^<[0-9a-f]{24}@showsuite\.test>$/);
    const text = m.text ?? '';
    for (const line of [
      'First name: Chloé',
      "Last name: O'Brien",
      'E-mail: chloe@example.com',
      'Phone: +33 6 12 34 56 78',
      `Unit: PH-2 (${unit._id})`,
      'Message: Is there parking?\nTwo cars.',
      'Source: brochure',
      'Questions: Budget: 1M',
      'Other answers: moveIn: 2027\npets: a cat',
      `Received: ${res.json().createdAt}`,
    ]) {
      assert.ok(text.includes(line), `text has "${line}"`);
    }
    const html = String(m.html);
    assert.match(html, /Harbour &lt;View&gt;/, 'HTML escapes the project name');
    assert.match(html, /<th[^>]*>Unit<\/th><td>PH-2/);
    assert.match(html, /O&#39;Brien/);
  });

  test('default subject is "New enquiry: <project>"; the visitor gets formsMessage in the project language (fr, es; others English)', async () => {
    const cases = [
      {
        lang: 'fr',
        subject: 'Merci pour votre demande : Résidence Lumière',
        hello: 'Bonjour Chloé,',
        notice: 'Nouvelle demande : Résidence Lumière',
        field: 'Prénom: Chloé',
      },
      {
        lang: 'es-MX',
        subject: 'Gracias por su consulta: Résidence Lumière',
        hello: 'Hola Chloé:',
        notice: 'Nueva consulta: Résidence Lumière',
        field: 'Nombre: Chloé',
      },
      {
        lang: 'de',
        subject: 'Thank you for your enquiry: Résidence Lumière',
        hello: 'Hello Chloé,',
        notice: 'New enquiry: Résidence Lumière',
        field: 'First name: Chloé',
      },
    ];
    for (const c of cases) {
      const p = await createProject(t.app, owner.auth, {
        name: 'Résidence Lumière',
        body: { enableForms: true, projectLang: c.lang, formsSendTo: 'team@example.com', formsMessage: 'We will call you within a day.\n\nThe team' },
      });
      assert.equal((await caller(t.app)('POST', '/public/leads', { project: p._id, ...visitor })).statusCode, 201);
      const got = await deliver();
      assert.equal(got.length, 2, c.lang);
      const notice = got.find((g) => g.rcptTo.includes('team@example.com'))!.parsed;
      const confirmation = got.find((g) => g.rcptTo.includes('chloe@example.com'))!.parsed;
      assert.equal(notice.subject, c.notice);
      assert.ok((notice.text ?? '').includes(c.field), `${c.lang}: ${notice.text}`);
      assert.equal(confirmation.subject, c.subject);
      assert.ok((confirmation.text ?? '').startsWith(`${c.hello}\n\nWe will call you within a day.\n\nThe team`), confirmation.text);
      assert.match(String(confirmation.html), new RegExp(`<html lang="${c.lang.slice(0, 2) === 'de' ? 'en' : c.lang.slice(0, 2)}"`));
      assert.match(String(confirmation.html), /<p>We will call you within a day\.<\/p><p>The team<\/p>/);
      assert.deepEqual(addresses(confirmation.replyTo), ['team@example.com']);
      assert.deepEqual(confirmation.from?.value, [{ name: 'Showsuite Mail', address: 'mail@showsuite.test' }]);
    }
  });

  test('a hold notifies formsSendTo with the unit name; a replayed request (same Idempotency-Key) mails nothing more', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Tower', body: { onHoldExperienceEnabled: true, formsSendTo: 'holds@example.com' } });
    const unit = await createUnit(t.app, owner.auth, p._id, { name: 'A-101' });
    const hold = () =>
      t.app.inject({ method: 'POST', url: `/public/units/${unit._id}/hold`, headers: { 'idempotency-key': `hold-${unit._id}` }, payload: visitor });
    assert.equal((await hold()).statusCode, 200);
    assert.equal((await hold()).headers['idempotent-replayed'], 'true');
    const got = await deliver();
    // The team's notice, and the holder's own (test/hold-tokens.test.ts).
    assert.deepEqual(got.map((g) => g.rcptTo).sort(), [['chloe@example.com'], ['holds@example.com']]);
    const m = got.find((g) => g.rcptTo[0] === 'holds@example.com')!.parsed;
    assert.equal(m.subject, 'Unit A-101 held: Tower');
    assert.ok((m.text ?? '').includes(`Unit: A-101 (${unit._id})`));
    assert.ok((m.text ?? '').includes('Source: hold'));
    assert.deepEqual(addresses(m.replyTo), ['chloe@example.com']);
  });

  test("the owner's companyName signs every mail of the project (team notice, confirmation, hold); none without it; a new name signs the next", async () => {
    const signer = await userWithToken(t);
    const me = caller(t.app, signer.auth);
    assert.equal((await me('PATCH', '/users/me', { companyName: 'Harbour & Sons' })).statusCode, 200);
    const p = await createProject(t.app, signer.auth, {
      name: 'Quay',
      body: { enableForms: true, onHoldExperienceEnabled: true, formsSendTo: 'quay@example.com', formsMessage: 'Thanks.' },
    });
    // An administrator's company does not sign: the owner's does.
    const admin = await userWithToken(t);
    await caller(t.app, admin.auth)('PATCH', '/users/me', { companyName: 'Someone Else Ltd' });
    assert.equal((await me('PATCH', `/project/${p._id}`, { administrators: [admin.id] })).statusCode, 200);
    const unit = await createUnit(t.app, signer.auth, p._id, { name: 'Q-1' });
    assert.equal((await caller(t.app)('POST', '/public/leads', { project: p._id, ...visitor })).statusCode, 201);
    assert.equal((await t.app.inject({ method: 'POST', url: `/public/units/${unit._id}/hold`, payload: visitor })).statusCode, 200);
    const got = await deliver();
    // Enquiry: notice and confirmation; hold: notice, confirmation and the holder's own.
    assert.equal(got.length, 5);
    for (const g of got) {
      assert.ok((g.parsed.text ?? '').endsWith('\n\n-- \nHarbour & Sons\n'), `${g.parsed.subject}: ${g.parsed.text}`);
      assert.match(String(g.parsed.html), /<p style="color:#555">— Harbour &amp; Sons<\/p><\/body>/, String(g.parsed.subject));
      assert.ok(!(g.parsed.text ?? '').includes('Someone Else'));
    }

    assert.equal((await me('PATCH', '/users/me', { companyName: 'Quay Homes' })).statusCode, 200);
    assert.equal((await caller(t.app)('POST', '/public/leads', { project: p._id, ...visitor })).statusCode, 201);
    for (const g of await deliver()) assert.ok((g.parsed.text ?? '').endsWith('\n\n-- \nQuay Homes\n'), g.parsed.text);

    assert.equal((await me('PATCH', '/users/me', { companyName: '' })).statusCode, 200);
    assert.equal((await caller(t.app)('POST', '/public/leads', { project: p._id, ...visitor })).statusCode, 201);
    for (const g of await deliver()) {
      assert.ok(!(g.parsed.text ?? '').includes('-- \n'), g.parsed.text);
      assert.doesNotMatch(String(g.parsed.html), /color:#555/);
    }
  });

  test('a project without formsSendTo or formsMessage queues no mail', async () => {
    const p = await createProject(t.app, owner.auth, { body: { enableForms: true } });
    assert.equal((await caller(t.app)('POST', '/public/leads', { project: p._id, ...visitor })).statusCode, 201);
    assert.equal(await t.app.outbox.drain(), 0);
  });
});
