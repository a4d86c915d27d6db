import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { createProject, type LoggedIn, type TestApp, TestClock, useOwnerApp } from './helpers.ts';

/**
 * The lock screen's own questions (`lockScreenCustom`, `lockScreenCustomQuestions`): their shape checked and bounded
 * on save, handed to the page in its bundle, and the answers kept on the lead as `questions` (the inbox's list, its
 * export). The page asking them is test/presentation-overview-lock.e2e.test.ts.
 */
let t: TestApp;
let owner: LoggedIn;
const clock = new TestClock();
const visitor = { firstName: 'Lena', lastName: 'Lock', email: 'lena@example.com', phone: '+1 555 0142' };
const QUESTIONS = [{ lang: 'en', value: 'What is your budget?' }, { lang: 'fr', value: 'Quel est votre budget ?' }, { value: 'When do you plan to move?' }];

useOwnerApp({ clock, env: { HOLD_SWEEP_SEC: '0' } }, (f) => ({ t, owner } = f));

const patch = (id: string, payload: Record<string, unknown>) => t.app.inject({ method: 'PATCH', url: `/projects/${id}`, headers: owner.auth, payload });
const paths = (res: { json: () => { errors?: { path: string }[] } }) => (res.json().errors ?? []).map((e) => e.path).sort();

describe('the lock screen’s own questions', () => {
  test('kept as sent, returned on the project and in the public bundle the page reads', async () => {
    const namespace = `lq-${newObjectId().slice(-8)}`;
    const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { lockScreen: true, lockScreenCustom: true } });
    const res = await patch(p._id, { lockScreenCustomQuestions: QUESTIONS });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().lockScreenCustomQuestions, QUESTIONS);
    const got = await t.app.inject({ method: 'GET', url: `/projects/${p._id}`, headers: owner.auth });
    assert.deepEqual(got.json().lockScreenCustomQuestions, QUESTIONS);
    const bundle = await t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` });
    assert.equal(bundle.statusCode, 200, bundle.body);
    assert.equal(bundle.json().project.lockScreenCustom, true);
    assert.deepEqual(bundle.json().project.lockScreenCustomQuestions, QUESTIONS);
    // Every language ('' or none) is a language too.
    assert.equal((await patch(p._id, { lockScreenCustomQuestions: [{ lang: '', value: 'Budget?' }] })).statusCode, 200);
  });

  test('400 naming the field: an unknown language, an empty or too long question, too many, another key, not a list', async () => {
    const p = await createProject(t.app, owner.auth, {});
    const cases: [unknown, string][] = [
      [[{ lang: 'de', value: 'Budget?' }], '/lockScreenCustomQuestions/0/lang'],
      [[{ lang: 'en', value: '' }], '/lockScreenCustomQuestions/0/value'],
      [[{ lang: 'en' }], '/lockScreenCustomQuestions/0/value'],
      [[{ value: 'Ok?' }, { value: 'x'.repeat(501) }], '/lockScreenCustomQuestions/1/value'],
      [Array.from({ length: 21 }, (_, i) => ({ value: `Question ${i}?` })), '/lockScreenCustomQuestions'],
      [[{ value: 'Budget?', answer: 'no' }], '/lockScreenCustomQuestions/0/answer'],
      ['Budget?', '/lockScreenCustomQuestions'],
    ];
    for (const [value, path] of cases) {
      const res = await patch(p._id, { lockScreenCustomQuestions: value });
      assert.equal(res.statusCode, 400, `${JSON.stringify(value).slice(0, 80)}: ${res.body}`);
      assert.equal(res.json().code, 'invalid_body');
      assert.deepEqual(paths(res), [path], res.body);
    }
    // Twenty questions of 500 characters are kept; nothing of a refused change was.
    const most = Array.from({ length: 20 }, (_, i) => ({ lang: 'es', value: `${i}`.padEnd(500, '?') }));
    const ok = await patch(p._id, { lockScreenCustomQuestions: most });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().lockScreenCustomQuestions.length, 20);
  });

  test('the answers are kept on the lead as questions: GET /leads, the export a line each, and bounded', async () => {
    const namespace = `lq-${newObjectId().slice(-8)}`;
    const p = await createProject(t.app, owner.auth, { query: { namespace }, body: { enableForms: true, lockScreen: true, lockScreenCustom: true } });
    const questions = [
      { question: 'What is your budget?', answer: '600k' },
      { question: 'When do you plan to move?', answer: 'Next spring' },
    ];
    const sent = await t.app.inject({
      method: 'POST',
      url: '/public/leads',
      payload: { namespace, ...visitor, source: 'lock-screen', questions },
      remoteAddress: '192.0.2.140',
    });
    assert.equal(sent.statusCode, 201, sent.body);
    assert.deepEqual(sent.json().questions, questions);
    const leads = (await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}`, headers: owner.auth })).json();
    assert.equal(leads.length, 1);
    assert.equal(leads[0].source, 'lock-screen');
    assert.deepEqual(leads[0].questions, questions);
    // The console's export (in the browser's zone): a line per answer; without a zone, the record's own JSON.
    const readable = await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}&format=csv&tz=UTC`, headers: owner.auth });
    assert.equal(readable.statusCode, 200, readable.body);
    assert.match(readable.body, /"What is your budget\?: 600k\nWhen do you plan to move\?: Next spring"/);
    const raw = await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}&format=csv`, headers: owner.auth });
    assert.match(raw.body, /""question"":""What is your budget\?""/);
    // An answer past 5,000 characters, or more than 50 answers: 400 naming them, no lead.
    const post = (extra: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/public/leads', payload: { namespace, ...visitor, ...extra }, remoteAddress: '192.0.2.141' });
    const long = await post({ questions: [{ question: 'Budget?', answer: 'x'.repeat(5001) }] });
    assert.equal(long.statusCode, 400);
    assert.deepEqual(paths(long), ['/questions/0/answer']);
    const many = await post({ questions: Array.from({ length: 51 }, () => ({ question: 'q', answer: 'a' })) });
    assert.equal(many.statusCode, 400);
    assert.deepEqual(paths(many), ['/questions']);
    assert.equal((await t.app.inject({ method: 'GET', url: `/leads?project=${p._id}`, headers: owner.auth })).json().length, 1);
  });
});
