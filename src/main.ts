import { buildApp } from './app.ts';
import { ensureAdmin } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDb } from './db/db.ts';
import { openFilesWarning, softOpenFileLimit } from './lib/open-files.ts';
import { migrate } from './db/migrate.ts';
import { seedDemo } from './seed/demo.ts';

/** The process: config, database, migrations, app, listen, graceful shutdown. */
async function main() {
  const startedAt = performance.now();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onPoolError: (e) => app?.log.warn({ err: e }, 'idle database connection lost'),
  });
  // eslint-disable-next-line prefer-const -- declared before the pool's error callback above can fire
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  app = await buildApp({ config, db });
  const applied = await migrate(db);
  if (applied.length) app.log.info({ applied }, 'applied migrations');
  await ensureAdmin(config, db, app.log);
  if (config.seedDemo) await seedDemo(db, app.log, config);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const force = setTimeout(() => {
      app.log.error('requests still in flight after 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { engine: db.engine, startToReadyMs: Math.round(performance.now() - startedAt) },
    `Showsuite ready on http://${config.host}:${config.port} (docs at /docs)`,
  );
  const openFiles = softOpenFileLimit();
  const warning = openFilesWarning(openFiles, config.sse.maxStreams);
  if (warning) app.log.warn({ openFileLimit: openFiles, sseMaxStreams: config.sse.maxStreams }, warning);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
