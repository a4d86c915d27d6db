import { buildApp } from './app.ts';
import { ensureAdmin } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDb } from './db/db.ts';
import { openFilesWarning, softOpenFileLimit } from './lib/open-files.ts';
import { migrate } from './db/migrate.ts';
import { checkKeys, KeyMismatchError } from './db/key-check.ts';
import { seedDemo } from './seed/demo.ts';
import { resealSecrets } from './db/reseal.ts';
import { SecretBox } from './lib/secret-box.ts';
import { missingBuildMessage, missingBuiltAssets } from './lib/built-assets.ts';

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
  // The page and the console are built by `npm run build`, never by the server: without them, one line saying so.
  const missing = missingBuiltAssets();
  if (missing.length) {
    console.error(missingBuildMessage(missing));
    process.exit(2);
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
  await checkKeys(db, config).catch(async (err: unknown) => {
    if (!(err instanceof KeyMismatchError)) throw err;
    console.error(err.message);
    await db.close();
    process.exit(2);
  });
  if (config.previousSecretKey) {
    const resealed = await resealSecrets(db, new SecretBox(config.secretKey, config.previousSecretKey));
    app.log.info({ resealed }, 'SECRET_KEY_PREVIOUS is set: stored secrets sealed under it are now sealed under SECRET_KEY');
  }
  await ensureAdmin(config, db, app.log);
  if (config.seedDemo) await seedDemo(db, app.log, config);

  // SIGTERM: no new connections; requests in flight are answered, live-feed streams end with a reconnect hint,
  // outbox attempts finish or go back to the queue (app.ts), the pool closes, exit 0, all within
  // SHUTDOWN_TIMEOUT_SEC. Connections still busy at 70% of it are cut so the rest fits.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const budgetMs = config.shutdownTimeoutSec * 1000;
    app.log.info({ signal, timeoutSec: config.shutdownTimeoutSec }, 'shutting down: no new connections, finishing requests in flight');
    // A keep-alive connection whose last request ends during the drain is closed as soon as it is idle.
    const idle = setInterval(() => {
      app.server.closeIdleConnections();
    }, 100);
    const cut = setTimeout(() => {
      app.server.getConnections((_err, open) => {
        if (open > 0) app.log.warn({ open }, 'connections still busy at 70% of SHUTDOWN_TIMEOUT_SEC; closing them');
        app.server.closeAllConnections();
      });
    }, budgetMs * 0.7);
    const force = setTimeout(() => {
      app.log.error(`still not closed after SHUTDOWN_TIMEOUT_SEC (${config.shutdownTimeoutSec} s); exiting`);
      process.exit(1);
    }, budgetMs);
    for (const timer of [idle, cut, force]) timer.unref();
    await app.close();
    clearInterval(idle);
    clearTimeout(cut);
    await db.close();
    app.log.info('shut down');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
    const why = {
      EADDRINUSE: 'is already in use by another process',
      EACCES: 'needs privileges this process lacks',
      EADDRNOTAVAIL: 'is not an address of this machine',
    }[code];
    // One line naming the settings, not a stack: the operator's next step is to change PORT/HOST or stop the other process.
    console.error(
      `Cannot listen on ${config.host}:${config.port}: ${code === 'EADDRNOTAVAIL' ? `HOST ${config.host}` : `port ${config.port}`} ${why}; set PORT (and HOST) to a free one`,
    );
    await app.close().catch(() => undefined);
    await db.close();
    process.exit(2);
  }
  app.log.info(
    { engine: db.engine, startToReadyMs: Math.round(performance.now() - startedAt) },
    `Showsuite ready on http://${config.host}:${config.port} (docs at /docs): console and API at ${config.mail.publicUrl}, buyer's pages at ${config.pagesUrl}`,
  );
  const openFiles = softOpenFileLimit();
  const warning = openFilesWarning(openFiles, { maxConnections: config.connections.max, maxStreams: config.sse.maxStreams });
  if (warning) app.log.warn({ openFileLimit: openFiles, sseMaxStreams: config.sse.maxStreams }, warning);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
