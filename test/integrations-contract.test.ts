import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../src/lib/clock.ts';
import { TokenCache, type Connector, type Credentials, type VendorDeps } from '../src/modules/integrations/connector.ts';
import { rentcafe } from '../src/modules/integrations/rentcafe.ts';
import { salesforce } from '../src/modules/integrations/salesforce.ts';
import { spark } from '../src/modules/integrations/spark.ts';
import { zoho } from '../src/modules/integrations/zoho.ts';
import { cal } from '../src/modules/integrations/cal.ts';

/**
 * Each connector against the real vendor, when its credentials are in the environment (a sandbox account: the test
 * changes nothing there); skipped otherwise, saying which variables it needs. The local servers of
 * test/support/crm-servers.ts stand in for the vendors everywhere else.
 */
const env = process.env;

const deps = (over: Partial<VendorDeps['config']> = {}): VendorDeps => ({
  config: {
    salesforceLoginUrl: env.SALESFORCE_TEST_LOGIN_URL ?? 'https://login.salesforce.com',
    zohoAccountsUrl: env.ZOHO_TEST_ACCOUNTS_URL ?? 'https://accounts.zoho.com',
    zohoApiUrl: env.ZOHO_TEST_API_URL ?? 'https://www.zohoapis.com',
    rentcafeApiUrl: env.RENTCAFE_TEST_API_URL ?? 'https://api.rentcafe.com',
    calUrl: env.CAL_TEST_URL ?? 'https://cal.com',
    timeoutMs: 20_000,
    ...over,
  },
  clock: systemClock,
  allowPrivate: false,
  tokens: new TokenCache(),
});

const CASES: { connector: Connector; vars: Record<string, string> }[] = [
  { connector: spark, vars: { srBaseUrl: 'SPARK_TEST_BASE_URL', srToken: 'SPARK_TEST_TOKEN' } },
  { connector: salesforce, vars: { sfKey: 'SALESFORCE_TEST_KEY', sfSecret: 'SALESFORCE_TEST_SECRET' } },
  { connector: zoho, vars: { zhClientId: 'ZOHO_TEST_CLIENT_ID', zhClientSecret: 'ZOHO_TEST_CLIENT_SECRET', zhAccessToken: 'ZOHO_TEST_REFRESH_TOKEN' } },
  // The availability call reads only; a wrong property code is refused with RENTCafé's error code.
  {
    connector: rentcafe,
    vars: { yiApiToken: 'RENTCAFE_TEST_API_TOKEN', yiCompanyCode: 'RENTCAFE_TEST_COMPANY_CODE', yiPropertyCode: 'RENTCAFE_TEST_PROPERTY_CODE' },
  },
];

for (const { connector, vars } of CASES) {
  const missing = Object.values(vars).filter((v) => !env[v]);
  test(
    `${connector.label}: the connection test against the real service`,
    { skip: missing.length ? `${missing.join(', ')} not in the environment: the real ${connector.label} was not called` : false },
    async () => {
      const creds: Credentials = Object.fromEntries(Object.entries(vars).map(([field, name]) => [field, env[name] ?? '']));
      await connector.test?.(creds, deps());
      // And a wrong secret is refused in words.
      const wrong = { ...creds, [connector.required.at(-1) ?? '']: 'not-the-credential' };
      await assert.rejects(connector.test?.(wrong, deps()) ?? Promise.resolve(), (err: Error) => err.message.startsWith(connector.label));
    },
  );
}

// Cal.com: the booking page of a real username answers, and a username nobody has is refused in words. (Its webhook's
// signature is checked by this server, not by Cal.com: test/bookings.test.ts signs as Cal.com does.)
const calUser = env.CAL_TEST_USERNAME;
test(
  'Cal.com: the connection test against the real booking pages',
  { skip: calUser ? false : 'CAL_TEST_USERNAME not in the environment: the real Cal.com was not called' },
  async () => {
    await cal.test?.({ calUsername: calUser ?? '', calKey: 'not-sent-anywhere' }, deps());
    const nobody = `showsuite-contract-${Date.now().toString(36)}-nobody`;
    await assert.rejects(cal.test?.({ calUsername: nobody, calKey: 'x' }, deps()) ?? Promise.resolve(), (err: Error) =>
      /^Cal\.com has no booking page/.test(err.message),
    );
  },
);
