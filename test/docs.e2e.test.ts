import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, SHOTS, skip } from './support/browser.ts';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, createProject, ENGINE, freePort, userWithToken, type TestApp } from './helpers.ts';

/**
 * The reference page (/docs) as an integrator uses it, in a real headless Chromium against the real service on a
 * socket: authorise with a token typed key by key, open listProjects, "Try it out" with `filters` and `options`,
 * execute. The request Swagger UI sends follows the document (`filters[name]`, `options[limit]`), so the service answers 200.
 * Screenshots go to test-results/docs-<state>-<engine>.png.
 */

describe(`the reference page in a browser (${ENGINE})`, { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let token: string;
  // One stamp for the three names: read three times, the clock can move between them and the filter then misses one.
  const stamp = Date.now();
  const names = [`Docs Tower ${stamp}`, `Docs Tower ${stamp} B`, `Docs Tower ${stamp} C`];

  before(async () => {
    // The document's `servers` is PUBLIC_URL, and "Try it out" sends its requests there: the address the test listens on.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await buildTestApp({ env: { PUBLIC_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    // Logged in through the API, as an integrator gets a token.
    const owner = await userWithToken(t);
    token = owner.auth.authorization.replace(/^Bearer /, '');
    for (const name of names) await createProject(t.app, owner.auth, { name });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = (page: Page, state: string) => page.screenshot({ path: `${SHOTS}/docs-${state}-${ENGINE}.png`, fullPage: false });

  test('authorise, then "Try it out" on listProjects with filters and options: bracket-form query, 200 with the page asked for', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(20_000);
    // Every error the page reports, with the step it came in.
    const errors: string[] = [];
    let step = 'load';
    page.on('pageerror', (err) => errors.push(`${step}: page error: ${err.message}`));
    page.on('console', (m) => m.type() === 'error' && errors.push(`${step}: console error: ${m.text()} at ${JSON.stringify(m.location())}`));
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.swagger-ui .info .title');
    assert.match(await page.locator('.swagger-ui .info .title').innerText(), /Showsuite API/);
    await shot(page, 'loaded');

    step = 'authorise';
    // Authorise: the bearer scheme's field, typed key by key.
    await page.click('.swagger-ui .auth-wrapper .authorize');
    const modal = page.locator('.swagger-ui .modal-ux');
    await modal.waitFor();
    const bearer = modal.locator('.auth-container').filter({ hasText: 'bearerAuth' });
    const field = bearer.locator('#auth-bearer-value');
    await field.click();
    await field.pressSequentially(token);
    await bearer.locator('button.authorize').click();
    // Authorised: the field gives way to the scheme's state and a Logout button.
    await bearer.locator('button', { hasText: 'Logout' }).waitFor();
    await shot(page, 'authorised');
    await bearer.locator('button.btn-done').click();
    await modal.waitFor({ state: 'detached' });

    step = 'open listProjects';
    // Open listProjects and try it out.
    const op = page.locator('#operations-projects-listProjects');
    await op.locator('.opblock-summary').first().click();
    // The page opens operations ready to try (tryItOutEnabled); otherwise the button turns it on.
    const tryOut = op.locator('.try-out__btn');
    if ((await tryOut.innerText()).trim() === 'Try it out') await tryOut.click();
    assert.equal((await tryOut.innerText()).trim(), 'Cancel', 'in "Try it out" mode');
    // One field per filter and option (`filters[name]`, `options[limit]`, `options[sort]`), as the document declares them.
    const nameBox = op.locator('tr[data-param-name="filters[name]"] input');
    const limitBox = op.locator('tr[data-param-name="options[limit]"] input');
    await nameBox.waitFor();
    for (const [box, value] of [
      [nameBox, names[0]!],
      [limitBox, '2'],
    ] as const) {
      await box.click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.press('Delete');
      await box.pressSequentially(value);
    }
    await op.locator('tr[data-param-name="options[sort]"] select').selectOption('-updatedAt');
    await shot(page, 'filled');
    step = 'execute';
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    await op.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await shot(page, 'answered');

    assert.equal((await status.innerText()).trim(), '200');
    const url = decodeURIComponent(await op.locator('.request-url pre').innerText());
    assert.ok(url.startsWith(`${base}/projects?`), url);
    assert.match(url, /options\[limit\]=2/, 'options in bracket form');
    assert.match(url, /options\[sort\]=-updatedAt/);
    assert.match(url, /filters\[name\]=Docs Tower/);
    const curl = await op.locator('.curl-command').innerText();
    assert.match(curl, /Authorization: Bearer /, 'the token the page was authorised with is sent');
    const body = JSON.parse(await op.locator('.live-responses-table .response-col_description pre.microlight').first().innerText()) as { name: string }[];
    assert.equal(body.length, 2, 'options.limit applied');
    assert.ok(
      body.every((p) => p.name.startsWith(names[0]!)),
      JSON.stringify(body.map((p) => p.name)),
    );
    assert.match(await op.locator('.live-responses-table').innerText(), /x-total-count: 3/i, 'the paging total among the response headers');
    // Known and harmless: at load the Swagger UI bundle inserts one <style> element that the page's strict CSP
    // (@fastify/swagger-ui `staticCSP`, hashes only) refuses; the page is styled by its stylesheet regardless (see the
    // screenshots). Anything else is a fault.
    const known = (e: string) => e.startsWith('load: console error: Applying inline style violates') && e.includes('/docs/static/swagger-ui-bundle.js');
    assert.deepEqual(
      errors.filter((e) => !known(e)),
      [],
    );
    await page.context().close();
  });
});
