import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  BOTH,
  close,
  floors,
  leads,
  namespace,
  noise,
  openWide,
  openUnit,
  owner,
  patchProject,
  patchUnit,
  projectId,
  shot,
  skip,
  t,
  texts,
  units,
  usePresentation,
} from './presentation-fixture.ts';
import { createGroup } from './helpers.ts';
import { newObjectId } from '../src/lib/object-id.ts';

/**
 * Two settings of the buyer's page, at a phone's size (390×844) and a desktop's (1440×900): the floor overview
 * (`showFloorOverview`; the group page follows its own switch) and the lock screen's own questions
 * (`lockScreenCustom`, `lockScreenCustomQuestions`), answered key by key and kept on the lead; and the project's
 * standard `finishes` on a unit sheet.
 */
usePresentation();

const open = openWide;

/** Each floor of the overview as a buyer reads it: name, count, price. */
const overview = (page: Page) =>
  page.$$eval('#floor-overview .fo-floor', (els) =>
    els.map((el) =>
      [...el.children]
        .map((c) => c.textContent ?? '')
        .filter(Boolean)
        .join(' | '),
    ),
  );

describe('the floor overview (showFloorOverview)', { skip }, () => {
  test('every floor with its homes available of all and its lowest price; a floor opens its plan; the switches follow', async () => {
    await patchProject({ showFloorOverview: true });
    await patchUnit('A1', { availability: 'sold' });
    await patchUnit('C4', { availability: 'reserved' });
    try {
      for (const size of BOTH) {
        const page = await open(size, `/p/${namespace}?view=list`);
        await page.waitForSelector('#floor-overview');
        // A1 ($400,000) is sold: Level 1 starts at $500,000; C4 is reserved, so Level 3 has 3 of 4.
        assert.deepEqual(await overview(page), [
          'Level 1 | 3 of 4 available | From $500,000',
          'Level 2 | 4 of 4 available | From $410,000',
          'Level 3 | 3 of 4 available | From $420,000',
        ]);
        assert.equal(await page.textContent('#floor-overview-title'), 'Floors at a glance');
        await shot(page, 'floor-overview-list', size);
        await (size === 'phone' ? page.locator(`#fo-${floors['Level 2']}`).tap() : page.click(`#fo-${floors['Level 2']}`));
        await page.waitForSelector('#results[data-view="plan"] path.shape');
        assert.match(page.url(), new RegExp(`floor=${floors['Level 2']}`));
        assert.equal(await page.getAttribute(`#fo-${floors['Level 2']}`, 'aria-current'), 'true');
        await shot(page, 'floor-overview-plan', size);
        // A sale reaches the overview through the live feed.
        await patchUnit('B2', { availability: 'sold' });
        await page.waitForFunction(() => /3 of 4 available/.test(document.querySelectorAll('#floor-overview .fo-floor')[1]?.textContent ?? ''));
        await patchUnit('B2', { availability: 'available' });
        assert.deepEqual(noise.get(page), []);
        await close(page);
      }
      // Without availability: a count of homes, no word of what is sold; without prices: no price.
      await patchProject({ showAvailability: false, showPrices: false });
      const hidden = await open('desktop', `/p/${namespace}?view=list`);
      assert.deepEqual(await overview(hidden), ['Level 1 | 4 homes', 'Level 2 | 4 homes', 'Level 3 | 4 homes']);
      await shot(hidden, 'floor-overview-hidden', 'desktop');
      await close(hidden);
      // In French, and gone with its switch.
      await patchProject({ showAvailability: true, showPrices: true, projectLang: 'fr' });
      const fr = await open('phone', `/p/${namespace}?view=list`);
      assert.equal(await fr.textContent('#floor-overview-title'), 'Les étages en un coup d’œil');
      assert.match((await overview(fr))[0] ?? '', /^Level 1 \| 3 sur 4 disponibles \| À partir de 500\s000\s\$US$/);
      await close(fr);
      await patchProject({ showFloorOverview: false, projectLang: 'en' });
      const off = await open('desktop', `/p/${namespace}`);
      await off.waitForSelector('#building');
      assert.equal(await off.locator('#floor-overview').count(), 0);
      await close(off);
    } finally {
      await patchProject({ showFloorOverview: false, showAvailability: true, showPrices: true, projectLang: 'en' });
      for (const name of ['A1', 'C4']) await patchUnit(name, { availability: 'available' });
    }
  });

  test("the group page follows the group's own switch, whatever the project's", async () => {
    const gns = `fo-${newObjectId().slice(-8)}`;
    const g = await createGroup(t.app, owner.auth, {
      name: 'Overview Group',
      query: { namespace: gns },
      body: { showFloorOverview: false, pricesStartingAt: true },
    });
    const set = async (body: Record<string, unknown>) => {
      const res = await t.app.inject({ method: 'PATCH', url: `/groups/${g._id}`, headers: owner.auth, payload: body });
      assert.equal(res.statusCode, 200, res.body);
    };
    await set({ projects: [projectId] });
    await patchProject({ showFloorOverview: true });
    try {
      const without = await open('desktop', `/g/${gns}`, '.projects');
      assert.equal(await without.locator('.g-floors').count(), 0, "the project's switch does not put it on the group page");
      await close(without);
      await set({ showFloorOverview: true });
      await patchProject({ showFloorOverview: false });
      for (const size of BOTH) {
        const page = await open(size, `/g/${gns}`, '.projects');
        await page.click('.g-floors summary');
        assert.deepEqual(await texts(page, '.g-floors li .g-floor-name'), ['Level 1', 'Level 2', 'Level 3']);
        assert.match((await page.textContent('.g-floors li')) ?? '', /4\/4 available.*From \$400,000/);
        await shot(page, 'group-floor-overview', size);
        await close(page);
      }
    } finally {
      await patchProject({ showFloorOverview: false });
    }
  });
});

describe('the lock screen’s own questions (lockScreenCustom)', { skip }, () => {
  const QUESTIONS = [{ lang: 'en', value: 'What is your budget?' }, { lang: 'fr', value: 'Quel est votre budget ?' }, { value: 'When do you plan to move?' }];
  const lockOn = {
    lockScreen: true,
    lockScreenName: true,
    lockScreenEmail: true,
    lockScreenPhone: true,
    lockScreenCustom: true,
    lockScreenCustomQuestions: QUESTIONS,
  };
  const lockOff = {
    lockScreen: false,
    lockScreenName: false,
    lockScreenEmail: false,
    lockScreenPhone: false,
    lockScreenCustom: false,
    lockScreenCustomQuestions: [],
  };

  test('asked in the page’s language, each required, answered key by key; the answers are on the lead', async () => {
    await patchProject(lockOn);
    try {
      for (const size of BOTH) {
        const page = await open(size, `/p/${namespace}`);
        await page.waitForSelector('#lock-form');
        // English questions and those for every language; not the French one.
        assert.deepEqual(await texts(page, '#lock-form label.field:has(input[name^="question-"])'), ['What is your budget?', 'When do you plan to move?']);
        const email = `lock-${size}@example.com`;
        for (const [id, value] of [
          ['#lock-firstName', 'Lena'],
          ['#lock-lastName', `Lock ${size}`],
          ['#lock-email', email],
          ['#lock-phone', '+1 555 0142'],
          ['#lock-question-0', '600k'],
        ] as const)
          await page.locator(id).pressSequentially(value);
        // The second question unanswered: the form says so and lets no one in.
        await (size === 'phone' ? page.locator('#lock-submit').tap() : page.click('#lock-submit'));
        assert.equal(await page.textContent('#lock-question-1-error'), 'is required');
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'lock-question-1');
        await shot(page, 'lock-questions', size);
        await page.locator('#lock-question-1').pressSequentially('Next spring');
        await (size === 'phone' ? page.locator('#lock-submit').tap() : page.click('#lock-submit'));
        await page.waitForSelector('#building');
        await shot(page, 'lock-questions-in', size);
        const lead = (await leads()).find((l) => l.email === email);
        assert.ok(lead, 'the lock screen made a lead');
        assert.equal(lead.source, 'lock-screen');
        assert.deepEqual(lead.questions, [
          { question: 'What is your budget?', answer: '600k' },
          { question: 'When do you plan to move?', answer: 'Next spring' },
        ]);
        assert.deepEqual(noise.get(page), []);
        await close(page);
      }
      // A French page asks the French question and the one for every language.
      await patchProject({ projectLang: 'fr' });
      const fr = await open('phone', `/p/${namespace}`);
      await fr.waitForSelector('#lock-form');
      assert.deepEqual(await texts(fr, '#lock-form label.field:has(input[name^="question-"])'), ['Quel est votre budget ?', 'When do you plan to move?']);
      await shot(fr, 'lock-questions-fr', 'phone');
      await close(fr);
      // Without lockScreenCustom the questions are not asked.
      await patchProject({ projectLang: 'en', lockScreenCustom: false });
      const plain = await open('desktop', `/p/${namespace}`);
      await plain.waitForSelector('#lock-form');
      assert.equal(await plain.locator('input[name^="question-"]').count(), 0);
      await close(plain);
    } finally {
      await patchProject({ ...lockOff, projectLang: 'en' });
    }
  });
});

describe("the project's finishes", { skip }, () => {
  test('a unit without finishes of its own lists the project’s on its sheet; one with its own lists those', async () => {
    await patchProject({ showUnitFinishes: true, finishes: ['Oak floors (standard)', 'Quartz counters (standard)'] });
    await patchUnit('A2', { finishes: ['Marble bath (own)'] });
    try {
      for (const size of BOTH) {
        const page = await open(size, `/p/${namespace}?view=list`);
        await openUnit(page, size, 'A1');
        assert.deepEqual(await texts(page, '#unit-finishes li'), ['Oak floors (standard)', 'Quartz counters (standard)']);
        await page.locator('#unit-finishes').scrollIntoViewIfNeeded();
        await shot(page, 'project-finishes', size);
        await close(page);
        const own = await open(size, `/p/${namespace}/units/${units.A2}`);
        await own.waitForSelector('dialog[open] #unit-finishes');
        assert.deepEqual(await texts(own, '#unit-finishes li'), ['Marble bath (own)']);
        await close(own);
      }
    } finally {
      await patchProject({ showUnitFinishes: false, finishes: [] });
      await patchUnit('A2', { finishes: [] });
    }
  });
});
