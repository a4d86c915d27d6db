/**
 * `npx tsx bench/deposits.ts [--holds 120] [--rounds 4] [--concurrency 4] [--cpu-prof dir]`: what a deposit adds to a hold. One service
 * (as `npm start` runs it) against the local server speaking Stripe's API (test/support/stripe-server.ts, in this
 * process), its owner's Stripe account onboarded; two projects of that owner, one taking a deposit (globalAmount 500
 * usd: each hold creates a Checkout Session on the owner's account, records the deposit, marks the lead, logs
 * deposit.pending) and one whose deposit is zero (a plain hold). Each round holds `--holds` fresh units of each,
 * `--concurrency` at a time, alternately (A-B, then B-A). Reported per side: holds per second, p50 and p99 of the hold
 * request, the service's CPU per hold; and deposit/plain, as the ratio of medians and paired (the median of the
 * per-round ratios). Traffic goes to 127.0.0.1 only. Needs the tests' PostgreSQL (or BENCH_PG_URL). `--cpu-prof dir`: the
 * service writes its CPU profile there when it stops.
 */
import { parseArgs } from 'node:util';
import { startStripe, stripeEnv } from '../test/support/stripe-server.ts';
import {
  cleanupOnSignals,
  cpuMs,
  createBenchDb,
  fmt,
  machine,
  median,
  onCleanup,
  pinSelfToLoadCore,
  pool,
  quantile,
  runCleanups,
  startService,
  table,
  writeResults,
} from './harness.ts';

const { values } = parseArgs({
  options: {
    holds: { type: 'string', default: '120' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '4' },
    /** A directory: the service writes its CPU profile there when it stops (node --cpu-prof). */
    'cpu-prof': { type: 'string' },
  },
});
const HOLDS = Number(values.holds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const ADMIN = { username: 'bench-admin@example.com', password: 'bench-admin-password-1' };
/** Every simulated buyer comes from 127.0.0.1. */
const LIMITS = { HOLD_REQUESTS_PER_MINUTE: '100000', HOLDS_PER_CLIENT: '1000', INVENTORY_SYNC_MINUTES: '0' };
if (HOLDS * ROUNDS * 2 > Number(LIMITS.HOLDS_PER_CLIENT)) {
  console.error(`--holds × --rounds × 2 must stay within ${LIMITS.HOLDS_PER_CLIENT}: every hold stays placed, all from one address`);
  process.exit(2);
}

type Side = 'deposit' | 'plain';
interface Round {
  side: Side;
  holdsPerSec: number;
  p50: number;
  p99: number;
  cpuUsPerHold: number | undefined;
}

async function send(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Record<string, any>) : {};
}

cleanupOnSignals();
try {
  const pinning = pinSelfToLoadCore();
  console.log(`pinning: ${pinning} (the local Stripe server runs in this process, on the load core)`);
  const stripe = await startStripe();
  onCleanup(() => stripe.stop());
  const db = await createBenchDb();
  onCleanup(db.drop);
  const service = await startService(
    { DATABASE_URL: db.url, ADMIN_EMAIL: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ...LIMITS, ...stripeEnv(stripe) },
    values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [],
  );
  onCleanup(service.stop);
  const base = service.base;
  const auth = { authorization: `Bearer ${(await send(base, 'POST', '/users/login', ADMIN)).access_token as string}` };

  // The owner connects Stripe and Stripe enables charges (its account.updated event, signed).
  await send(base, 'POST', '/users/me/payments/onboarding', undefined, auth);
  const account = (await send(base, 'GET', '/users/me', undefined, auth)).paymentsAccountId as string;
  stripe.enableCharges(account);
  const signed = stripe.signed(stripe.event('account.updated', { id: account, object: 'account' }, account));
  // The signature is over these exact bytes.
  const hook = await fetch(`${base}/payments/webhook`, { method: 'POST', headers: signed.headers, body: signed.payload });
  if (hook.status !== 200) throw new Error(`account.updated: ${hook.status} ${await hook.text()}`);

  const units: Record<Side, string[]> = { deposit: [], plain: [] };
  for (const [side, amount] of [
    ['deposit', 500],
    ['plain', 0],
  ] as [Side, number][]) {
    const qs = new URLSearchParams({ name: `Bench ${side}`, namespace: `bench-${side}` });
    const p = await send(base, 'POST', `/projects?${qs}`, { onHoldExperienceEnabled: true, globalAmount: amount, chargeCurrency: 'usd' }, auth);
    const f = await send(base, 'POST', `/floors?${new URLSearchParams({ project: p._id, name: 'Tower' })}`, undefined, auth);
    await pool(
      Array.from({ length: HOLDS * ROUNDS }, (_, i) => `${side[0]}-${i + 1}`),
      8,
      async (name) => {
        const u = await send(base, 'POST', `/units?${new URLSearchParams({ project: p._id, floor: f._id, name, position: '0' })}`, { price: 500000 }, auth);
        units[side].push(u._id);
      },
    );
  }
  console.log(`${HOLDS * ROUNDS} units per project; ${ROUNDS} rounds × ${HOLDS} holds per side, ${CONCURRENCY} at a time`);

  const person = (i: number) => ({ firstName: `Buyer${i}`, lastName: 'Bench', email: `buyer${i}@example.com`, phone: '+1 555 0100' });
  let buyer = 0;
  /** One round of one side: `HOLDS` holds of fresh units, each checked for what it answered. */
  async function round(side: Side, r: number): Promise<Round> {
    const mine = units[side].slice(r * HOLDS, (r + 1) * HOLDS);
    const latencies: number[] = [];
    const cpuBefore = cpuMs(service.process.pid);
    const started = performance.now();
    await pool(mine, CONCURRENCY, async (unit) => {
      const t0 = performance.now();
      const held = await send(base, 'POST', `/public/units/${unit}/hold`, person(buyer++));
      latencies.push(performance.now() - t0);
      if ((held.payment !== undefined) !== (side === 'deposit')) throw new Error(`a ${side} hold answered ${held.payment ? 'with' : 'without'} a payment`);
    });
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuMs(service.process.pid);
    return {
      side,
      holdsPerSec: HOLDS / seconds,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      cpuUsPerHold: cpuBefore !== undefined && cpuAfter !== undefined ? ((cpuAfter - cpuBefore) * 1000) / HOLDS : undefined,
    };
  }

  const runs: Record<Side, Round[]> = { deposit: [], plain: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // A-B then B-A: neither side always runs first.
    const order: Side[] = r % 2 ? ['plain', 'deposit'] : ['deposit', 'plain'];
    for (const side of order) {
      const one = await round(side, r);
      runs[side].push(one);
      console.log(
        `  round ${r + 1} ${side.padEnd(7)} ${fmt(one.holdsPerSec, 1).padStart(6)} holds/s  p50 ${fmt(one.p50, 1)} ms  p99 ${fmt(one.p99, 1)} ms  ${one.cpuUsPerHold !== undefined ? `${fmt(one.cpuUsPerHold)} µs CPU/hold` : ''}`,
      );
    }
  }
  const sessions = stripe.requests.filter((q) => q.method === 'POST' && q.path === '/v1/checkout/sessions').length;
  if (sessions !== HOLDS * ROUNDS) throw new Error(`${sessions} Checkout Sessions for ${HOLDS * ROUNDS} deposit holds`);

  const med = (side: Side, k: 'holdsPerSec' | 'p50' | 'p99' | 'cpuUsPerHold') =>
    median(runs[side].map((x) => x[k]).filter((v): v is number => v !== undefined));
  const paired = (k: 'holdsPerSec' | 'p50' | 'cpuUsPerHold') =>
    median(runs.deposit.map((d, i) => (d[k] ?? NaN) / (runs.plain[i]![k] ?? NaN)).filter(Number.isFinite));
  console.log(`\nPOST /public/units/{id}/hold, ${CONCURRENCY} at a time, ${ROUNDS} × ${HOLDS} holds per side; medians over rounds\n`);
  console.log(
    table(
      ['', 'holds/s', 'p50 ms', 'p99 ms', 'µs CPU/hold'],
      (['plain', 'deposit'] as Side[]).map((side) => [
        side === 'plain' ? 'plain hold' : 'hold with a deposit',
        fmt(med(side, 'holdsPerSec'), 1),
        fmt(med(side, 'p50'), 1),
        fmt(med(side, 'p99'), 1),
        fmt(med(side, 'cpuUsPerHold')),
      ]),
    ),
  );
  const ratios = {
    throughput: med('deposit', 'holdsPerSec') / med('plain', 'holdsPerSec'),
    throughputPaired: paired('holdsPerSec'),
    p50: med('deposit', 'p50') / med('plain', 'p50'),
    p50Paired: paired('p50'),
    cpu: med('deposit', 'cpuUsPerHold') / med('plain', 'cpuUsPerHold'),
    cpuPaired: paired('cpuUsPerHold'),
  };
  console.log(
    `\ndeposit/plain: holds/s ${fmt(ratios.throughput, 2)} (paired ${fmt(ratios.throughputPaired, 2)}), ` +
      `p50 ${fmt(ratios.p50, 2)} (paired ${fmt(ratios.p50Paired, 2)}), CPU per hold ${fmt(ratios.cpu, 2)} (paired ${fmt(ratios.cpuPaired, 2)})`,
  );
  console.log(`${sessions} Checkout Sessions created on the local Stripe server, one per deposit hold`);
  const file = writeResults('deposits', {
    kind: 'deposits',
    at: new Date().toISOString(),
    machine: machine(),
    pinning,
    options: { holds: HOLDS, rounds: ROUNDS, concurrency: CONCURRENCY },
    runs,
    ratios,
  });
  console.log(`\nresults: ${file}`);
} finally {
  await runCleanups();
}
