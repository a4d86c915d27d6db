import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DESKTOP, launchBrowser, shotsAtBothSizes, skip, twoOrigins } from './support/browser.ts';
import { buildTestApp, userWithToken, type LoggedIn, type TestApp } from './helpers.ts';

/**
 * Shared by the console's browser tests that start signed in (console-*.e2e.test.ts): the service on a socket with the
 * console on one origin and the buyer's pages on the other, a fresh owner, and one Chromium page holding the owner's
 * session cookies from POST /users/login, as the console's own sign-in leaves them. The bindings below are set before
 * the file's tests run.
 */
export { skip };

export let t: TestApp;
/** The console's and the API's origin (http://localhost:<port>). */
export let base: string;
/** The buyer's pages' origin (http://127.0.0.1:<port>). */
export let pagesBase: string;
export let browser: Browser;
export let context: BrowserContext;
export let page: Page;
export let owner: LoggedIn;
/** Uncaught errors of the page: a test ends by finding none. */
export const pageErrors: string[] = [];
let shotPrefix = 'console';
let fullPageShots = false;

/**
 * Registers the file's set-up and tear-down. `env`: more settings for the service; `shots`: the screenshots' file
 * name prefix; `fullPage`: screenshots of the whole page rather than the screen.
 */
export function useSignedInConsole(opts: { env?: Record<string, string>; shots: string; fullPage?: boolean }) {
  shotPrefix = opts.shots;
  fullPageShots = opts.fullPage ?? false;
  before(async () => {
    const origins = await twoOrigins();
    t = await buildTestApp({ env: { HOLD_SWEEP_SEC: '0', ...opts.env, ...origins.env } });
    await t.app.listen({ port: origins.port, host: '127.0.0.1' });
    base = origins.consoleBase;
    pagesBase = origins.pagesBase;
    owner = await userWithToken(t);
    if (skip) return;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const res = await context.request.post(`${base}/users/login`, { data: { username: owner.username, password: owner.password } });
    assert.equal(res.status(), 200);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });
}

/** One request as the owner, straight to the app. */
export const api = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: method as 'GET', url, headers: { ...owner.auth, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });

/** One request as the owner that must succeed; its JSON. */
export const json = async <T = Record<string, unknown>>(method: string, url: string, payload?: unknown): Promise<T> => {
  const res = await api(method, url, payload);
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
};

/** The page at the desktop's size and then the phone's, for a person to look at (test-results/<prefix>-<name>-<size>.png). */
export const shots = (name: string) => shotsAtBothSizes(page, `${shotPrefix}-${name}`, { fullPage: fullPageShots });

export const heading = (text: string | RegExp) => page.getByRole('heading', { level: 1, name: text }).waitFor();
export const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
