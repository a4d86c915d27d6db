import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readdirSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ensureBuilt } from './built.ts';
import { ENGINE, freePort, openTestDb, tempDir, TEST_JWT_SECRET, type TestDb } from './helpers.ts';

/**
 * `npm start` as an operator runs it: it builds dist/ when needed and serves from plain `node dist/main.js`;
 * SIGTERM sent to the npm process (what a supervisor or `kill $!` does) reaches the server, which finishes the
 * request in flight, stops and exits 0, and npm with it; nothing is left holding the port.
 */

describe(`npm start and SIGTERM (${ENGINE})`, () => {
  let testDb: TestDb | undefined;
  let npm: ChildProcess;
  let port: number;
  let output = '';
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let env: Record<string, string>;

  before(async () => {
    port = await freePort();
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: TEST_JWT_SECRET,
      SECRET_KEY: randomBytes(32).toString('hex'),
      SEED_DEMO: 'false',
      // debug: the server logs each request as it arrives, which the SIGTERM test waits for.
      LOG_LEVEL: 'debug',
      DATA_DIR: tempDir(),
    };
    if (ENGINE === 'postgres') {
      testDb = await openTestDb({ migrate: false });
      env.DATABASE_URL = testDb.url!;
      // The test's own pool is not needed: the server migrates and uses the database itself.
    }
    npm = spawn('npm', ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    npm.stdout!.on('data', (d) => (output += d));
    npm.stderr!.on('data', (d) => (output += d));
    exited = new Promise((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
    let gone = false;
    void exited.then(() => (gone = true));
    // However long the build and the first start take on a busy machine: until /ready answers, or npm exits.
    while (!gone) {
      const status = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(!gone, `npm start exited before it was ready:\n${output}`);
  });
  after(async () => {
    if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    await testDb?.drop();
  });

  test('the server runs the build with plain node, not through a TypeScript loader', async () => {
    const { execFileSync } = await import('node:child_process');
    const tree = execFileSync('ps', ['-eo', 'pid,ppid,args'], { encoding: 'utf8' });
    const children = tree.split('\n').filter((l) => l.trim().split(/\s+/)[1] === String(npm.pid));
    assert.equal(children.length, 1, tree);
    assert.match(children[0]!, /node (--[a-z-]+=\S+ )*scripts\/start\.mjs/);
    // The young-generation cap and the heap's growth factor that keep the peak RSS down (docs/decisions.md) are on
    // the process that serves.
    assert.match(children[0]!, /--max-semi-space-size=\d+/);
    assert.match(children[0]!, /--heap-growing-percent=\d+/);
    assert.doesNotMatch(
      tree
        .split('\n')
        .filter((l) => l.includes('start.mjs'))
        .join('\n'),
      /tsx/,
    );
    // The console's and the API's host by default (127.0.0.1 serves the buyer's pages).
    assert.equal((await fetch(`http://localhost:${port}/openapi.json`)).status, 200);
  });

  test('a second start on the busy port says so in one line naming PORT and exits 2', async () => {
    const second = spawn('npm', ['start'], { env: { ...env, DATA_DIR: tempDir() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    second.stdout!.on('data', (d) => (text += d));
    second.stderr!.on('data', (d) => (text += d));
    const code = await new Promise<number | null>((resolve) => second.once('exit', (c) => resolve(c)));
    assert.equal(code, 2, text);
    const lines = text.split('\n').filter((l) => /in use/.test(l));
    assert.equal(lines.length, 1, text);
    assert.match(lines[0]!, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is already in use by another process; set PORT`));
    assert.doesNotMatch(text, /^\s+at /m, 'no stack trace');
  });

  test('SIGTERM to the npm process: the request in flight is answered, then the server and npm exit 0', async () => {
    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ username: 'nobody@example.com', password: 'not-the-password' });
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    const answered = new Promise<void>((resolve) => {
      socket.on('data', (d) => {
        answer += d;
        if (/\r\n\r\n[\s\S]*\}$/.test(answer)) resolve();
      });
      socket.on('close', () => resolve());
    });
    socket.write(`POST /users/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    // The server has the request (its log line says so) before the signal is sent.
    while (!/"url":"\/users\/login"/.test(output)) await new Promise((r) => setTimeout(r, 20));
    npm.kill('SIGTERM');
    while (!/shutting down/.test(output)) await new Promise((r) => setTimeout(r, 20));
    socket.write(body.slice(5));
    await answered;
    assert.match(answer, /^HTTP\/1\.1 401 /, `in-flight request answered: ${answer}\n${output}`);
    socket.destroy();

    const { code, signal } = await exited;
    assert.equal(signal, null, output);
    assert.equal(code, 0, output);
    // Nothing is left holding the port.
    const refused = await fetch(`http://127.0.0.1:${port}/health`).then(
      () => false,
      () => true,
    );
    assert.ok(refused, 'the port is free after npm exits');
  });
});

describe('a start without the built page and console', () => {
  test('stops before it opens the database, in one line naming the directory and `npm run build`, exit 2', async () => {
    await ensureBuilt();
    // The built server as it ships, in a directory of its own that has no public-build/ (the image without its COPY
    // of it, or a checkout where only the server was built).
    const root = tempDir('showsuite-unbuilt-');
    const repo = join(import.meta.dirname, '..');
    cpSync(join(repo, 'package.json'), join(root, 'package.json'));
    cpSync(join(repo, 'dist'), join(root, 'dist'), { recursive: true });
    symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
    const dataDir = join(tempDir(), 'data');
    const child = spawn(process.execPath, [join(root, 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        JWT_SECRET: TEST_JWT_SECRET,
        SECRET_KEY: randomBytes(32).toString('hex'),
        DATA_DIR: dataDir,
        PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    assert.equal(code, 2, text);
    const lines = text.trim().split('\n');
    assert.equal(lines.length, 1, text);
    assert.equal(
      lines[0],
      `Cannot start: the built page and console are missing from ${join(root, 'public-build')} (manifest.json, admin-manifest.json, embed.js); run \`npm run build\` first`,
    );
    assert.ok(!existsSync(dataDir) || readdirSync(dataDir).length === 0, 'no embedded database was opened');
  });
});
