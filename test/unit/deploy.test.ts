import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../src/lib/paths.ts';

/**
 * The shipping files, checked without a container engine: deploy/compose.yaml passes Showsuite only settings the
 * config reader knows (names read from src/config.ts itself, so a setting renamed or removed there fails here), and
 * has the services a deployment needs; the Dockerfile is multi-stage, installs production dependencies only, runs
 * as a non-root user and checks /ready.
 */

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');

/** Every environment variable name src/config.ts mentions: quoted names (`str('PORT')`) and `env.NAME`. */
function configNames(): Set<string> {
  const source = read('src/config.ts');
  const names = new Set<string>();
  for (const m of source.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)['"`]/g)) names.add(m[1]!);
  for (const m of source.matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]*)/g)) names.add(m[1]!);
  return names;
}

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, unknown> | string[];
  depends_on?: unknown;
  volumes?: string[];
  command?: unknown;
}

const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const showsuiteNodes = services.filter(([, s]) => s.build !== undefined || /showsuite/.test(s.image ?? ''));

function envNames(s: Service): string[] {
  if (Array.isArray(s.environment)) return s.environment.map((e) => e.split('=')[0]!);
  return Object.keys(s.environment ?? {});
}

describe('deploy/compose.yaml', () => {
  test('the config reader is where the names come from (the scan finds its settings)', () => {
    const names = configNames();
    for (const n of ['DATABASE_URL', 'SECRET_KEY', 'JWT_SECRET', 'REDIS_URL', 'METRICS_TOKEN', 'OTEL_EXPORTER_OTLP_ENDPOINT']) assert.ok(names.has(n), n);
  });

  test('every variable passed to a Showsuite node is a setting src/config.ts reads', () => {
    const known = configNames();
    assert.ok(showsuiteNodes.length > 0);
    for (const [name, s] of showsuiteNodes) {
      const unknown = envNames(s).filter((n) => !known.has(n));
      assert.deepEqual(unknown, [], `${name} passes settings src/config.ts does not read`);
    }
  });

  test('PostgreSQL 15, Redis, S3-compatible storage, two Showsuite nodes sharing one setup, a reverse proxy with its config in deploy/', () => {
    const image = (re: RegExp) => services.filter(([, s]) => re.test(s.image ?? ''));
    assert.equal(image(/^postgres:15/).length, 1);
    assert.equal(image(/^redis:/).length, 1);
    assert.equal(image(/^minio\/minio/).length, 1);
    assert.equal(showsuiteNodes.length, 2);
    const [[, a], [, b]] = showsuiteNodes as [[string, Service], [string, Service]];
    assert.deepEqual(a.environment, b.environment, 'both nodes run with the same settings');
    for (const n of ['DATABASE_URL', 'REDIS_URL', 'JWT_SECRET', 'SECRET_KEY', 'MEDIA_STORE', 'S3_ENDPOINT', 'TRUST_PROXY'])
      assert.ok(envNames(a).includes(n), n);
    const proxy = services.find(([, s]) => /^(caddy|nginx)/.test(s.image ?? ''));
    assert.ok(proxy, 'a reverse proxy');
    const mounted = (proxy[1].volumes ?? []).map((v) => v.split(':')[0]!).filter((p) => p.startsWith('./'));
    assert.ok(mounted.length > 0, 'its config is mounted from deploy/');
    for (const file of mounted) assert.ok(existsSync(join(PROJECT_ROOT, 'deploy', file)), file);
    const proxyConfig = read(join('deploy', mounted[0]!));
    for (const [name] of showsuiteNodes) assert.ok(proxyConfig.includes(name), `the proxy sends traffic to ${name}`);
  });
});

describe('deploy/compose.yaml, what a restart may change', () => {
  const top = parse(read('deploy/compose.yaml'), { merge: true }) as { volumes?: Record<string, unknown> };

  test('every image from a registry is an exact release, never a floating tag', () => {
    for (const [name, s] of services) {
      if (s.build !== undefined) continue;
      const image = s.image ?? '';
      const tag = image.includes('@sha256:') ? 'digest' : (image.split(':')[1] ?? '');
      assert.ok(tag === 'digest' || /^(\d+\.\d+\.\d+|\d+\.\d+-|RELEASE\.)/.test(tag), `${name}: ${image} floats`);
    }
  });

  test('state lives in named volumes declared at the top, one per node for its DATA_DIR', () => {
    for (const [name, s] of services) {
      for (const v of s.volumes ?? []) {
        const source = v.split(':')[0]!;
        if (source.startsWith('./')) continue; // a file of deploy/, mounted read-only
        assert.ok(top.volumes && source in top.volumes, `${name}: ${v} is not a named volume`);
      }
    }
    const dataVolumes = showsuiteNodes.map(([, s]) => (s.volumes ?? []).find((v) => v.endsWith(':/data'))?.split(':')[0]);
    assert.ok(dataVolumes.every(Boolean), 'each node mounts a named volume at /data');
    assert.equal(new Set(dataVolumes).size, showsuiteNodes.length, 'one per node');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const lines = dockerfile.split('\n').filter((l) => !l.trimStart().startsWith('#'));
  const stages = lines.filter((l) => /^FROM\s/i.test(l));

  test('multi-stage: the last stage takes the build output and production dependencies from earlier ones', () => {
    assert.ok(stages.length >= 2);
    const last = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    assert.match(last, /COPY --from=\S+ \/app\/dist /);
    assert.match(last, /COPY --from=\S+ \/app\/public-build /);
    assert.match(last, /COPY --from=\S+ \/app\/node_modules /);
    assert.doesNotMatch(last, /npm (ci|install)/, 'nothing installed in the final stage');
    assert.match(dockerfile, /npm ci[^\n]*--omit=dev/);
    assert.match(dockerfile, /npm run build/);
  });

  test('every stage on one exact Node.js 22 LTS release', () => {
    const base = /^ARG NODE_IMAGE=node:(\d+)\.\d+\.\d+-/m.exec(dockerfile);
    assert.equal(base?.[1], '22', 'ARG NODE_IMAGE names an exact node:22 release');
    for (const stage of stages) assert.match(stage, /^FROM \$\{NODE_IMAGE\}/, stage);
  });

  test('runs as a non-root user, checks /ready, starts plain node on dist/main.js', () => {
    const users = lines.filter((l) => /^USER\s/i.test(l));
    assert.ok(users.length > 0);
    assert.doesNotMatch(users.at(-1)!, /^USER\s+(root|0)(\s|:|$)/i);
    assert.match(dockerfile, /HEALTHCHECK[\s\S]*\/ready/);
    assert.match(dockerfile, /CMD \[[^\]]*"dist\/main\.js"\]/);
  });

  test('the image starts node with the flags `npm start` uses', () => {
    const flags = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start.match(/--[a-z-]+=\S+/g) ?? [];
    assert.ok(flags.length >= 2, flags.join(' '));
    const cmd = lines.find((l) => /^CMD \[/.test(l)) ?? '';
    for (const flag of flags) assert.ok(cmd.includes(`"${flag}"`), `${flag} in ${cmd}`);
  });
});
