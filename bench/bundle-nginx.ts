/**
 * `npx tsx bench/bundle-nginx.ts [--duration 10] [--warmup 3] [--rounds 3] [--connections 32]`: the public bundle a
 * launch-day crowd fetches, against the physical limit. nginx (one worker, the bytes from a file, sendfile, no
 * compression asked) serves the same bytes the service answers for `GET /public/projects/bench-showcase`; the service
 * is measured on PostgreSQL and on the embedded database (PGlite, the default), side by side in one run, each as a
 * share of nginx's requests per second. Every server runs on the server core, autocannon on the other.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CompiledQuery } from 'kysely';
import { openDb } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import {
  seededBenchDb,
  runMain,
  BENCH_JWT_SECRET,
  cpuMs,
  fmt,
  freePort,
  machine,
  median,
  onCleanup,
  pinned,
  pinSelfToLoadCore,
  SERVER_CORE,
  startService,
  table,
  tempDir,
  writeResults,
} from './harness.ts';
import { load } from './load.ts';
import { seedWith } from './seed.ts';

const NGINX = '/usr/sbin/nginx';
const PATH = '/public/projects/bench-showcase';
/** The targets: the service's share of nginx's throughput. */
const TARGETS = { postgres: 0.9, embedded: 0.6 };

interface Target {
  name: string;
  base: string;
  pid: number | undefined;
}

/** nginx with one worker serving `body` at PATH from a file, as a static server would; stopped at clean-up. */
async function startNginx(body: Buffer): Promise<Target> {
  const dir = tempDir('showsuite-bench-nginx-');
  // nginx's worker drops root to an unprivileged user, which must be able to read the file.
  chmodSync(dir, 0o755);
  onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
  const www = join(dir, 'www');
  mkdirSync(join(www, 'public', 'projects'), { recursive: true });
  writeFileSync(join(www, PATH), body);
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${dir}/tmp-body;
  proxy_temp_path ${dir}/tmp-proxy;
  fastcgi_temp_path ${dir}/tmp-fastcgi;
  uwsgi_temp_path ${dir}/tmp-uwsgi;
  scgi_temp_path ${dir}/tmp-scgi;
  server {
    listen 127.0.0.1:${port};
    root ${www};
    location / { default_type application/json; add_header Cache-Control "public, max-age=5"; }
  }
}
`,
  );
  const [cmd, args] = pinned(SERVER_CORE, NGINX, ['-p', dir, '-c', conf]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.once('exit', r));
  onCleanup(async () => {
    child.kill('SIGQUIT');
    await exited;
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const status = await fetch(`${base}${PATH}`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (child.exitCode !== null || i > 500) throw new Error(`nginx did not serve the file (last answer ${status}): ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  // The master forks the one worker: that is the process serving (taskset was inherited), whose CPU is counted.
  let worker: number | undefined;
  try {
    worker = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0]) || undefined;
  } catch {
    worker = undefined;
  }
  return { name: 'nginx (1 worker, file)', base, pid: worker };
}

async function main() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
    },
  });
  const durationSec = Number(values.duration);
  const warmupSec = Number(values.warmup);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  console.log(`pinning: ${pinSelfToLoadCore()}`);

  const { db } = await seededBenchDb();

  // The embedded database: the same showcase project written into a data directory the service then opens.
  const dataDir = tempDir('showsuite-bench-embedded-');
  onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
  const lite = await openDb({ dataDir });
  await migrate(lite);
  await seedWith(
    { query: (text, params) => lite.kysely.executeQuery(CompiledQuery.raw(text, params ?? [])), end: () => lite.close() },
    { jwtSecret: BENCH_JWT_SECRET, projects: 0, strangerProjects: 0 },
  );

  const onPg = await startService({ DATABASE_URL: db.url });
  onCleanup(onPg.stop);
  const embedded = await startService({ DATA_DIR: dataDir });
  onCleanup(embedded.stop);

  const answer = await fetch(`${onPg.base}${PATH}`);
  if (answer.status !== 200) throw new Error(`service answered ${answer.status}`);
  const body = Buffer.from(await answer.arrayBuffer());
  const embeddedBytes = (await (await fetch(`${embedded.base}${PATH}`)).arrayBuffer()).byteLength;
  console.log(`bundle: ${body.length} bytes on PostgreSQL, ${embeddedBytes} embedded (the same project; its ids differ); nginx serves the PostgreSQL bytes`);
  const nginx = await startNginx(body);

  const targets: Target[] = [
    nginx,
    { name: 'service, PostgreSQL', base: onPg.base, pid: onPg.process.pid },
    { name: 'service, embedded (PGlite)', base: embedded.base, pid: embedded.process.pid },
  ];
  const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < rounds; round++) {
    // Rotate the order so a drifting machine hits each server alike.
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const t of order) {
      await load({ url: `${t.base}${PATH}`, connections, durationSec: warmupSec });
      const before = cpuMs(t.pid);
      const r = await load({ url: `${t.base}${PATH}`, connections, durationSec });
      const after = cpuMs(t.pid);
      rps.get(t.name)!.push(r.reqPerSec);
      if (before !== undefined && after !== undefined && r.ok) cpu.get(t.name)!.push(((after - before) * 1000) / r.ok);
      console.log(`round ${round + 1}: ${t.name}: ${fmt(r.reqPerSec)} req/s, p99 ${r.latencyMs.p99} ms, ${r.non2xx} not 2xx, ${r.errors} errors`);
    }
  }
  const base = median(rps.get(nginx.name)!);
  const rows = targets.map((t) => {
    const m = median(rps.get(t.name)!);
    const c = cpu.get(t.name)!;
    return [t.name, fmt(m), fmt((m * body.length) / 1e6), fmt(m / base, 2), c.length ? fmt(median(c)) : '-'];
  });
  console.log(`\n${table(['server', 'req/s', 'MB/s', 'share of nginx', 'µs CPU/req'], rows)}`);
  // Each round's servers ran back to back: the median of the per-round shares is steadier than the share of medians.
  const paired = (name: string) => median(rps.get(name)!.map((r, i) => r / rps.get(nginx.name)![i]!));
  const pgShare = paired(targets[1]!.name);
  const liteShare = paired(targets[2]!.name);
  console.log(`share of nginx, median of the rounds' own shares: PostgreSQL ${fmt(pgShare, 2)}, embedded ${fmt(liteShare, 2)}`);
  console.log(
    `targets: PostgreSQL ${fmt(pgShare, 2)} (≥ ${TARGETS.postgres} ${pgShare >= TARGETS.postgres ? 'met' : 'NOT met'}), ` +
      `embedded ${fmt(liteShare, 2)} (≥ ${TARGETS.embedded} ${liteShare >= TARGETS.embedded ? 'met' : 'NOT met'})`,
  );
  const file = writeResults('bundle-nginx', {
    machine: machine(),
    bytes: body.length,
    connections,
    durationSec,
    rounds,
    rps: Object.fromEntries(rps),
    pgShare,
    liteShare,
  });
  console.log(`results: ${file}`);
}

await runMain(main);
