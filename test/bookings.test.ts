import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, caller, createUser, ENGINE, publicProject, sessionToken, slug, TestClock, type Caller, type TestApp } from './helpers.ts';
import { CalPages, CalSender } from './support/cal-server.ts';
import { SparkServer } from './support/crm-servers.ts';
import { Receiver } from './support/webhook-receiver.ts';
import { startSmtp, type Smtp } from './smtp.ts';

/**
 * Cal.com bookings as leads (docs/integrations.md): Cal.com's webhook, signed with the project's calKey, sent by a
 * local sender over a real socket as Cal.com sends it; the booking page's connection test against a local Cal.com.
 */
const DAY = 24 * 3600 * 1000;
const CAL_KEY = 'cal-webhook-secret-3f9a1c';
const SPARK_TOKEN = 'spark-token-for-bookings';
const RATE = 60;
// As in the other integration tests: the app's clock a day behind the database's, so what the outbox queues is due.
const clock = new TestClock(Date.now() - DAY);
let t: TestApp;
let origin: string;
let pages: CalPages;
let spark: SparkServer;
let smtp: Smtp;
/** Every answer seen, to look for the key in. */
const seen: string[] = [];

before(async () => {
  pages = await new CalPages(['harbour-sales', 'harbour-sales/visit']).listen();
  spark = await new SparkServer(SPARK_TOKEN).listen();
  smtp = await startSmtp();
  t = await buildTestApp({
    clock,
    env: {
      ALLOW_PRIVATE_TARGETS: 'true',
      OUTBOX_POLL_MS: '0',
      HOLD_SWEEP_SEC: '0',
      CAL_URL: pages.url,
      SMTP_URL: smtp.url,
      INTEGRATION_TIMEOUT_MS: '2000',
      PUBLIC_LEADS_PER_MINUTE: String(RATE),
    },
  });
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await t.close();
  await pages.close();
  await spark.close();
  await smtp.stop();
});

/**
 * A project of its own owner with Cal.com set up, Spark, the sales team's address and a visitor confirmation, units A1
 * and A2; its owner's caller (every answer kept in `seen`) and a Cal.com sender for its bookings address.
 */
async function calProject(fields: Record<string, unknown> = {}) {
  const owner = await createUser(t.db);
  const { token } = await sessionToken(t.db, owner.id);
  const auth = { authorization: `Bearer ${token}` };
  const p = await publicProject(t.app, auth, {
    name: 'Harbour Lofts',
    settings: {
      calUsername: 'harbour-sales',
      calKey: CAL_KEY,
      srBaseUrl: spark.baseUrl,
      srToken: SPARK_TOKEN,
      formsSendTo: 'sales@harbour.example',
      formsMessage: 'Thank you: we will be in touch.',
      ...fields,
    },
    units: { A1: {}, A2: {} },
  });
  const as = caller(t.app, auth);
  const asOwner: Caller = async (...args) => {
    const res = await as(...args);
    seen.push(res.body);
    return res;
  };
  return { ...p, as: asOwner, sender: new CalSender(`${origin}/public/projects/${p.namespace}/bookings`, CAL_KEY) };
}

type P = Awaited<ReturnType<typeof calProject>>;

async function leadsOf(p: P) {
  const res = await p.as('GET', `/leads?project=${p.id}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Record<string, any>[];
}

async function state(p: P) {
  const res = await p.as('GET', `/projects/${p.id}/integrations`);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as Record<string, any>[]).find((s) => s.name === 'cal') as Record<string, any>;
}

describe(`Cal.com bookings become leads (${ENGINE})`, () => {
  test('BOOKING_CREATED: a lead with source booking, the attendee, the visit and the unit; CRMs, the sales team’s mail and webhooks', async () => {
    const p = await calProject();
    const receiver = await new Receiver().listen();
    try {
      assert.equal((await p.as('POST', `/projects/${p.id}/webhooks`, { url: receiver.url, events: ['*'] })).statusCode, 201);
      const booking = CalSender.booking({ metadata: { project: p.id, unit: p.units.A1, unitName: 'A1' } });
      const mailsBefore = smtp.received.length;
      const res = await p.sender.deliver('BOOKING_CREATED', booking);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.outcome, 'created');
      const [lead] = await leadsOf(p);
      assert.equal(res.json.lead, lead?._id);
      assert.equal(lead?.source, 'booking');
      assert.equal(lead?.firstName, 'Ada');
      assert.equal(lead?.lastName, 'Lovelace');
      assert.equal(lead?.email, 'ada@example.com');
      assert.equal(lead?.phone, '+44 20 7946 0000');
      assert.equal(lead?.unit, p.units.A1);
      assert.equal(lead?.message, 'Visit of Harbour Lofts, unit A1');
      assert.deepEqual(lead?.booking, { uid: booking.uid, status: 'booked', startTime: '2031-05-25T09:30:00.000Z', endTime: '2031-05-25T10:00:00.000Z' });
      assert.equal(lead?.createdAt, new Date(clock.now()).toISOString());

      await t.app.outbox.drain();
      // The CRM: Spark got the lead with its source and the visit.
      const [contact] = [...spark.contacts.values()].filter((c) => c.email === 'ada@example.com');
      assert.equal(contact?.marketing_source, 'booking');
      assert.match(String(contact?.notes), /Visit: 2031-05-25T09:30:00\.000Z \(booked, Cal\.com\)/);
      // The sales team's notice, naming the visit and the unit; no visitor confirmation (Cal.com confirms the booking).
      await smtp.waitFor(mailsBefore + 1);
      const mails = smtp.received.slice(mailsBefore);
      assert.deepEqual(
        mails.map((m) => m.rcptTo),
        [['sales@harbour.example']],
      );
      assert.match(mails[0]?.parsed.subject ?? '', /Visit booked: Harbour Lofts/);
      assert.match(mails[0]?.parsed.text ?? '', /Visit: .*2031/);
      assert.match(mails[0]?.parsed.text ?? '', /Unit: A1/);
      // The project's webhooks: lead.created, as for every lead.
      const created = receiver.events().find((e) => e.type === 'lead.created');
      assert.equal(created?.data._id, lead?._id);
      assert.deepEqual(created?.data.changes.source, [null, 'booking']);
      assert.equal(created?.data.changes.booking[1].uid, booking.uid);
      for (const r of receiver.received) assert.ok(!r.body.includes(CAL_KEY), 'the key was sent in a webhook');
    } finally {
      await receiver.close();
    }
  });

  test('a delivery sent again, or twice at once, makes one lead', async () => {
    const p = await calProject();
    const body = CalSender.body('BOOKING_CREATED', CalSender.booking());
    const [a, b] = await Promise.all([p.sender.send(body), p.sender.send(body)]);
    assert.deepEqual([a.status, b.status], [200, 200]);
    assert.deepEqual([a.json.outcome, b.json.outcome].sort(), ['created', 'duplicate']);
    const again = await p.sender.send(body);
    assert.equal(again.json.outcome, 'duplicate');
    const leads = await leadsOf(p);
    assert.equal(leads.length, 1);
    assert.equal(again.json.lead, leads[0]?._id);
    assert.equal(leads[0]?.__v, 1);
  });

  test('BOOKING_RESCHEDULED moves the same lead; BOOKING_CANCELLED marks it cancelled; each once', async () => {
    const p = await calProject();
    const first = CalSender.booking();
    assert.equal((await p.sender.deliver('BOOKING_CREATED', first)).json.outcome, 'created');
    const receiver = await new Receiver().listen();
    try {
      assert.equal((await p.as('POST', `/projects/${p.id}/webhooks`, { url: receiver.url, events: ['lead.updated'] })).statusCode, 201);
      // Cal.com gives the rescheduled booking a new uid and names the old one in rescheduleUid.
      const moved = CalSender.booking({
        rescheduleUid: first.uid,
        startTime: '2031-05-27T14:00:00Z',
        endTime: '2031-05-27T14:30:00Z',
        rescheduleStartTime: first.startTime,
      });
      const res = await p.sender.deliver('BOOKING_RESCHEDULED', moved);
      assert.equal(res.json.outcome, 'updated', res.text);
      let [lead] = await leadsOf(p);
      assert.equal((await leadsOf(p)).length, 1);
      assert.equal(res.json.lead, lead?._id);
      assert.deepEqual(lead?.booking, { uid: moved.uid, status: 'rescheduled', startTime: '2031-05-27T14:00:00.000Z', endTime: '2031-05-27T14:30:00.000Z' });
      assert.equal(lead?.__v, 2);
      assert.equal((await p.sender.deliver('BOOKING_RESCHEDULED', moved)).json.outcome, 'duplicate');

      // A cancellation of the booking it replaced changes nothing (the lead follows the new one).
      assert.equal((await p.sender.deliver('BOOKING_CANCELLED', { ...first, cancellationReason: 'old' })).json.outcome, 'duplicate');
      const cancel = await p.sender.deliver('BOOKING_CANCELLED', { ...moved, status: 'CANCELLED', cancellationReason: 'Found another flat' });
      assert.equal(cancel.json.outcome, 'updated');
      [lead] = await leadsOf(p);
      assert.equal(lead?.booking.status, 'cancelled');
      assert.equal(lead?.booking.cancellationReason, 'Found another flat');
      assert.equal(lead?.booking.startTime, '2031-05-27T14:00:00.000Z');
      assert.equal(lead?.status, 'new', "the sales team's status is theirs");
      assert.equal((await p.sender.deliver('BOOKING_CANCELLED', { ...moved, cancellationReason: 'again' })).json.outcome, 'duplicate');
      assert.equal((await leadsOf(p))[0]?.__v, 3);

      await t.app.outbox.drain();
      const updates = receiver.events().filter((e) => e.type === 'lead.updated');
      assert.deepEqual(
        updates.map((e) => [e.data._id, e.data.changes.booking[0].status, e.data.changes.booking[1].status]),
        [
          [lead?._id, 'booked', 'rescheduled'],
          [lead?._id, 'rescheduled', 'cancelled'],
        ],
      );
      // The CRM was updated, never sent a second contact.
      const contacts = [...spark.contacts.values()].filter((c) => c.email === 'ada@example.com' && /cancelled, Cal\.com/.test(String(c.notes)));
      assert.equal(contacts.length, 1);
    } finally {
      await receiver.close();
    }
    // A reschedule of a booking never seen is a new lead.
    assert.equal((await p.sender.deliver('BOOKING_RESCHEDULED', CalSender.booking({ rescheduleUid: 'never-seen' }))).json.outcome, 'created');
  });

  test('a cancellation that arrives before its booking: the lead made from it, already cancelled; the late creation changes nothing', async () => {
    const p = await calProject();
    const booking = CalSender.booking({ attendees: [{ name: 'Lin Out-of-order', email: 'lin@example.com' }] });
    const cancel = await p.sender.deliver('BOOKING_CANCELLED', { ...booking, status: 'CANCELLED', cancellationReason: 'Changed my mind' });
    assert.equal(cancel.json.outcome, 'created');
    assert.equal((await p.sender.deliver('BOOKING_CREATED', booking)).json.outcome, 'duplicate');
    assert.equal((await p.sender.deliver('BOOKING_CANCELLED', booking)).json.outcome, 'duplicate');
    const leads = (await leadsOf(p)).filter((l) => l.email === 'lin@example.com');
    assert.equal(leads.length, 1);
    assert.equal(leads[0]?.booking.status, 'cancelled');
    assert.equal(leads[0]?.booking.cancellationReason, 'Changed my mind');
  });

  test('a unit the metadata names that is not the project’s is left out; other triggers are acknowledged', async () => {
    const p = await calProject();
    const other = await calProject();
    const res = await p.sender.deliver(
      'BOOKING_CREATED',
      CalSender.booking({ metadata: { unit: other.units.A1 }, attendees: [{ name: 'Grace Hopper', email: 'grace@example.com' }] }),
    );
    assert.equal(res.json.outcome, 'created');
    const [lead] = await leadsOf(p);
    assert.equal(lead?.unit, undefined);
    assert.equal(lead?.firstName, 'Grace');
    assert.equal(lead?.lastName, 'Hopper');
    for (const trigger of ['MEETING_ENDED', 'PING', 'BOOKING_PAID']) {
      const r = await p.sender.deliver(trigger, { uid: 'x' });
      assert.equal(r.status, 200);
      assert.equal(r.json.outcome, 'ignored');
    }
    assert.equal((await leadsOf(p)).length, 1);
  });
});

describe(`Cal.com bookings: what is refused (${ENGINE})`, () => {
  test('a bad or missing signature → 401 problem+json, no lead; the state says why in words', async () => {
    const p = await calProject();
    const body = CalSender.body('BOOKING_CREATED', CalSender.booking());
    for (const signature of [CalSender.sign(body, 'another-secret'), null, 'not-hex', CalSender.sign(`${body} `, CAL_KEY)]) {
      const res = await p.sender.send(body, { signature });
      assert.equal(res.status, 401, res.text);
      assert.match(String(res.headers.get('content-type')), /application\/problem\+json/);
      assert.equal(res.json.code, 'invalid_credentials');
      assert.match(res.json.detail, /X-Cal-Signature-256/);
    }
    assert.equal((await leadsOf(p)).length, 0);
    const s = await state(p);
    assert.match(s.lastError, /did not verify against calKey/);
    assert.equal(s.connected, false);
    // A signed one after it: connected, its last success the delivery's time; the last error stays until the next.
    assert.equal((await p.sender.send(body)).status, 200);
    const after = await state(p);
    assert.equal(after.connected, true);
    assert.equal(after.lastSuccessAt, new Date(clock.now()).toISOString());
  });

  test('400 naming the field, 403 without calKey, 404 unknown project, 413 too large, 415 not JSON', async () => {
    const p = await calProject();
    const noEmail = await p.sender.deliver('BOOKING_CREATED', CalSender.booking({ attendees: [{ name: 'No Mail' }], responses: {} }));
    assert.equal(noEmail.status, 400, noEmail.text);
    assert.deepEqual(noEmail.json.errors, [{ path: '/payload/attendees/0/email', message: 'is required' }]);
    const badTime = await p.sender.deliver('BOOKING_CREATED', CalSender.booking({ startTime: 'tomorrow' }));
    assert.deepEqual(badTime.json.errors, [{ path: '/payload/startTime', message: 'is not a date-time' }]);
    const noUid = await p.sender.deliver('BOOKING_CREATED', CalSender.booking({ uid: undefined }));
    assert.deepEqual(noUid.json.errors, [{ path: '/payload/uid', message: 'is required' }]);
    assert.equal((await leadsOf(p)).length, 0);

    const keyless = await calProject({ calKey: undefined });
    const refused = await keyless.sender.deliver('BOOKING_CREATED', CalSender.booking());
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.detail, /calKey/);

    const nowhere = new CalSender(`${origin}/public/projects/${slug('none')}/bookings`, CAL_KEY);
    assert.equal((await nowhere.deliver('BOOKING_CREATED', CalSender.booking())).status, 404);

    const huge = CalSender.body('BOOKING_CREATED', CalSender.booking({ description: 'x'.repeat(300 * 1024) }));
    const tooLarge = await p.sender.send(huge);
    assert.equal(tooLarge.status, 413);
    assert.match(String(tooLarge.headers.get('content-type')), /application\/problem\+json/);
    const notJson = await p.sender.send('triggerEvent=BOOKING_CREATED', { contentType: 'application/x-www-form-urlencoded' });
    assert.equal(notJson.status, 415);
    assert.equal((await leadsOf(p)).length, 0);
  });

  test('rate-limited per client address like the other public writes → 429 with Retry-After', async () => {
    const url = `/public/projects/${slug('none')}/bookings`;
    const codes: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i <= RATE; i++) {
      const res = await t.app.inject({ method: 'POST', url, payload: { triggerEvent: 'PING' }, remoteAddress: '192.0.2.45' });
      codes.push(res.statusCode);
      if (res.statusCode === 429) retryAfter = String(res.headers['retry-after']);
    }
    assert.deepEqual([...new Set(codes.slice(0, RATE))], [404]);
    assert.equal(codes.at(-1), 429);
    assert.ok(Number(retryAfter) > 0);
  });
});

describe(`Cal.com: the page's link, the state and the connection test (${ENGINE})`, () => {
  test('the bundle gives the booking page, never the username field or the key', async () => {
    const p = await calProject();
    const res = await t.app.inject({ method: 'GET', url: `/public/projects/${p.namespace}` });
    assert.equal(res.statusCode, 200);
    const project = res.json().project;
    assert.equal(project.bookingUrl, `${pages.url}/harbour-sales`);
    assert.equal(project.calUsername, undefined);
    assert.ok(!res.body.includes(CAL_KEY));
    const event = await calProject({ calUsername: 'harbour-sales/visit' });
    const withSlug = (await t.app.inject({ method: 'GET', url: `/public/projects/${event.namespace}` })).json().project;
    assert.equal(withSlug.bookingUrl, `${pages.url}/harbour-sales/visit`);
    const odd = await calProject({ calUsername: '../admin?x=1' });
    assert.equal((await t.app.inject({ method: 'GET', url: `/public/projects/${odd.namespace}` })).json().project.bookingUrl, undefined);
    const none = await calProject({ calUsername: undefined });
    assert.equal((await t.app.inject({ method: 'GET', url: `/public/projects/${none.namespace}` })).json().project.bookingUrl, undefined);
  });

  test('POST …/integrations/cal/test: 200 when the booking page answers; 502 in words when it does not; a 429 keeps connected', async () => {
    const p = await calProject();
    const ok = await p.as('POST', `/projects/${p.id}/integrations/cal/test`);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().connected, true);
    assert.equal(ok.json().testable, true);
    assert.equal(ok.json().lastSuccessAt, new Date(clock.now()).toISOString());
    assert.ok(pages.asked.includes('harbour-sales'));

    pages.limitNext(30);
    const limited = await p.as('POST', `/projects/${p.id}/integrations/cal/test`);
    assert.equal(limited.statusCode, 502, limited.body);
    assert.match(limited.json().detail, /Cal\.com asked to slow down.*retry after 30 s/);
    assert.equal(limited.json().integration.connected, true);

    const unknown = await calProject({ calUsername: 'nobody-here' });
    const refused = await unknown.as('POST', `/projects/${unknown.id}/integrations/cal/test`);
    assert.equal(refused.statusCode, 502, refused.body);
    assert.equal(refused.json().code, 'upstream_failed');
    assert.match(refused.json().detail, /Cal\.com has no booking page for calUsername \(404\)/);
    assert.equal(refused.json().integration.connected, false);
    assert.match((await state(unknown)).lastError, /no booking page/);

    const incomplete = await calProject({ calKey: undefined });
    const missing = await incomplete.as('POST', `/projects/${incomplete.id}/integrations/cal/test`);
    assert.equal(missing.statusCode, 409);
    assert.match(missing.json().detail, /calKey is not set/);
  });

  test('the key never leaves the server', async () => {
    const p = await calProject();
    await p.sender.deliver('BOOKING_CREATED', CalSender.booking());
    await p.as('GET', `/project/${p.id}`);
    await p.as('GET', `/projects/${p.id}/events`);
    for (const body of seen) assert.ok(!body.includes(CAL_KEY), `the key appeared in an answer: ${body.slice(0, 200)}`);
  });
});
