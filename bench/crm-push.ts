/**
 * `npx tsx bench/crm-push.ts [--leads 1000] [--seconds 60] [--vendor-delay-ms 2000] [--vendor-rate 10]`: leads pushed
 * to a slow CRM from two nodes (two built servers, `npm start` alike) sharing one PostgreSQL. A local Spark server
 * (test/support/crm-servers.ts) answers every call after `--vendor-delay-ms` and accepts at most `--vendor-rate`
 * calls in any one second (more are answered 429 with Retry-After: 1). `--leads` enquiries arrive evenly over
 * `--seconds`, alternating between the nodes.
 *
 * Checked: every enquiry answered 201, each answer arriving before the vendor answered the push of that lead (so none
 * waited for it; how fast is reported: on a loaded machine it is the machine's, not the vendor's); every lead created at the vendor
 * exactly once (no e-mail twice among its contacts) and marked sent; the vendor's own count of calls it had to refuse
 * for its rate limit, and the most it accepted in one second. Reported: the answers' p50/p99/max, and how long after
 * the last enquiry the last lead reached the vendor.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SparkServer } from '../test/support/crm-servers.ts';
import { createBenchDb, fmt, machine, onCleanup, quantile, runMain, startService, table, writeResults } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    leads: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '60' },
    'vendor-delay-ms': { type: 'string', default: '2000' },
    'vendor-rate': { type: 'string', default: '10' },
    'give-up-sec': { type: 'string', default: '900' },
  },
});
const LEADS = Number(args.leads);
const SECONDS = Number(args.seconds);
const ADMIN = { username: 'bench-admin@example.com', password: 'bench-admin-password-1' };
const NAMESPACE = 'bench-crm';
const TOKEN = 'bench-spark-token-0123456789';

async function main() {
  const spark = await new SparkServer(TOKEN).listen();
  onCleanup(() => spark.close());
  spark.delayMs = Number(args['vendor-delay-ms']);
  spark.ratePerSec = Number(args['vendor-rate']);

  const db = await createBenchDb();
  onCleanup(db.drop);
  const env = {
    DATABASE_URL: db.url,
    ADMIN_EMAIL: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    INVENTORY_SYNC_MINUTES: '0',
    // The vendor is on loopback; every enquiry comes from 127.0.0.1.
    ALLOW_PRIVATE_TARGETS: 'true',
    PUBLIC_LEADS_PER_MINUTE: '100000',
  };
  // The first node migrates; the second starts on the migrated database.
  const a = await startService(env, [], false);
  onCleanup(a.stop);
  const b = await startService(env, [], false);
  onCleanup(b.stop);
  const nodes = [a.base, b.base];

  const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const login = (await (await post(a.base, '/users/login', ADMIN)).json()) as { access_token: string };
  const auth = { authorization: `Bearer ${login.access_token}` };
  const settings = { namespace: NAMESPACE, published: true, enableForms: true, srBaseUrl: spark.baseUrl, srToken: TOKEN };
  const created = await post(a.base, `/projects?${new URLSearchParams({ name: 'CRM Bench' })}`, settings, auth);
  if (created.status !== 201) throw new Error(`project: ${created.status} ${await created.text()}`);
  const projectId = ((await created.json()) as { _id: string })._id;
  console.log(
    `two nodes ready; ${LEADS} enquiries over ${SECONDS} s to a vendor answering after ${spark.delayMs} ms, at most ${spark.ratePerSec} calls a second`,
  );

  const latencies: number[] = [];
  /** When each enquiry's answer arrived, by e-mail (ms since epoch), to compare with when the vendor first heard of it. */
  const answeredAt = new Map<string, number>();
  const statuses: Record<number, number> = {};
  const started = performance.now();
  const gap = (SECONDS * 1000) / LEADS;
  await Promise.all(
    Array.from({ length: LEADS }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i * gap));
      const t0 = performance.now();
      const res = await post(nodes[i % 2]!, '/public/leads', {
        namespace: NAMESPACE,
        firstName: `Buyer${i}`,
        lastName: 'Bench',
        email: `buyer${i}@example.com`,
        phone: '+1 555 0100',
        message: 'Two bedrooms?',
        utm: { source: 'bench' },
      });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      answeredAt.set(`buyer${i}@example.com`, Date.now());
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }),
  );
  const answeredSec = (performance.now() - started) / 1000;

  // The database's word: every lead marked sent to Spark.
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  onCleanup(() => c.end());
  const sent = async () =>
    Number(
      (await c.query(`select count(*) filter (where data->'sentTo' @> '[{"integration":"spark"}]')::int as n from leads where project_id = $1`, [projectId]))
        .rows[0].n,
    );
  const deadline = performance.now() + Number(args['give-up-sec']) * 1000;
  let pushed = await sent();
  while (pushed < LEADS && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    pushed = await sent();
  }
  const allPushedSec = (performance.now() - started) / 1000;

  const byEmail = new Map<string, number>();
  for (const contact of spark.contacts.values()) byEmail.set(String(contact.email), (byEmail.get(String(contact.email)) ?? 0) + 1);
  const twice = [...byEmail.values()].filter((n) => n > 1).length;
  const creates = spark.callsTo('/v2/contacts', 'POST').length;
  // An answer that waited for the vendor would arrive after the vendor answered: its first call plus its delay.
  const firstCall = new Map<string, number>();
  for (const call of spark.callsTo('/v2/contacts', 'POST')) {
    const email = String((JSON.parse(call.body || '{}') as { email?: unknown }).email);
    if (!firstCall.has(email)) firstCall.set(email, call.at);
  }
  const waited = [...answeredAt].filter(([email, at]) => at >= (firstCall.get(email) ?? Infinity) + spark.delayMs).length;

  const checks = {
    'every enquiry answered 201': statuses[201] === LEADS,
    "no enquiry's answer waited for the vendor's (each arrived before the vendor answered that lead)": waited === 0,
    'every lead marked sent to the vendor': pushed === LEADS,
    'every lead created at the vendor once (no e-mail twice)': byEmail.size === LEADS && twice === 0,
    "the vendor's rate limit never exceeded (by construction it refuses the excess: counted below)": spark.peakPerSec <= (spark.ratePerSec ?? Infinity),
  };
  console.log(
    `\nload average of the machine at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')} (${cpus().length} CPUs)`,
  );
  console.log(`\n${fmt(answeredSec, 1)} s to answer every enquiry; the last lead reached the vendor ${fmt(allPushedSec, 1)} s after the first enquiry\n`);
  console.log(
    table(
      ['enquiries', 'p50 ms', 'p99 ms', 'max ms', 'statuses'],
      [[LEADS, fmt(quantile(latencies, 0.5), 1), fmt(quantile(latencies, 0.99), 1), fmt(Math.max(...latencies), 1), JSON.stringify(statuses)]],
    ),
  );
  console.log(
    `\nvendor: ${spark.contacts.size} contacts, ${creates} create calls (${spark.rateLimited} refused 429 for its rate limit), at most ${spark.peakPerSec} calls accepted in one second`,
  );
  for (const [name, ok] of Object.entries(checks)) console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
  const file = writeResults('crm-push', {
    machine: machine(),
    args,
    answeredSec,
    allPushedSec,
    latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: Math.max(...latencies) },
    statuses,
    loadavg: loadavg(),
    vendor: { contacts: spark.contacts.size, creates, rateLimited: spark.rateLimited, peakPerSec: spark.peakPerSec },
    checks,
  });
  console.log(`\nresults: ${file}`);
  if (Object.values(checks).some((ok) => !ok)) throw new Error('a check failed');
}

await runMain(main);
