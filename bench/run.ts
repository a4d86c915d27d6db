/**
 * npm run bench                    the service against the bare baseline, scenario by scenario
 * npm run bench -- startup         start-to-ready and login throughput
 * npm run bench -- all             both
 * npm run bench -- metrics         the unit read with GET /metrics on against the same service with it off
 * Options: --duration 10 --warmup 3 --connections 50 --rounds 2 --only <text in scenario name> --keep-db
 *          --cpu-prof <dir> (the service writes a V8 CPU profile there when it stops)
 *          --repeat 5 --login-duration 10 --login-connections 16 --no-login
 */
import { parseArgs } from 'node:util';
import { runMain } from './harness.ts';
import { runResources } from './resources.ts';
import { runStartup } from './startup.ts';
import { runMetricsBench } from './metrics.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    only: { type: 'string' },
    'keep-db': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    repeat: { type: 'string', default: '5' },
    'login-duration': { type: 'string', default: '10' },
    'no-login': { type: 'boolean', default: false },
    'login-connections': { type: 'string', default: '16' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const command = positionals[0] ?? 'resources';
const usage =
  'usage: npm run bench [-- resources|startup|all|metrics] [--duration s] [--warmup s] [--connections n] [--rounds n] [--only text] [--keep-db] [--cpu-prof dir]\n' +
  '       [--repeat n] [--login-duration s] [--login-connections n] [--no-login]';

function positive(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a positive integer (got "${raw}")\n${usage}`);
    process.exit(2);
  }
  return n;
}

if (values.help || !['resources', 'startup', 'all', 'metrics'].includes(command)) {
  console.log(usage);
  process.exit(values.help ? 0 : 2);
}

await runMain(async () => {
  if (command === 'startup' || command === 'all') {
    await runStartup({
      repeat: positive('repeat', values.repeat),
      loginDurationSec: positive('login-duration', values['login-duration']),
      loginConnections: positive('login-connections', values['login-connections']),
      login: !values['no-login'],
      warmupSec: positive('warmup', values.warmup),
    });
  }
  if (command === 'resources' || command === 'all') {
    await runResources({
      durationSec: positive('duration', values.duration),
      warmupSec: positive('warmup', values.warmup),
      connections: positive('connections', values.connections),
      rounds: positive('rounds', values.rounds),
      only: values.only,
      keepDb: values['keep-db'],
      cpuProfDir: values['cpu-prof'],
    });
  }
  if (command === 'metrics') {
    await runMetricsBench({
      durationSec: positive('duration', values.duration),
      warmupSec: positive('warmup', values.warmup),
      connections: positive('connections', values.connections),
      rounds: positive('rounds', values.rounds),
    });
  }
});
