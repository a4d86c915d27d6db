import type pg from 'pg';

/** What the watch reads of a pg client: its statement in progress (pg 8 keeps it in `_activeQuery`) and its socket. */
interface WatchedClient {
  _activeQuery?: object | null;
  connection?: { stream?: { destroy(): void } };
}

const SEEN = Symbol('showsuite.statementSeenAt');

/**
 * A bound on how long one statement may run, checked from outside the statements (an unreachable
 * database fails requests within seconds, also when it stops answering on a connection already open).
 *
 * Once per `everyMs`, every pooled client's statement in progress is looked at. A statement seen for the first time
 * is stamped with the time; one still running `limitMs` after its stamp has its connection destroyed. pg then fails
 * it ("Connection terminated unexpectedly", answered 503) and the pool replaces the client. So a statement ends
 * between `limitMs` and `limitMs + everyMs` after it started. A transaction is not a statement: each of its statements
 * gets its own time.
 *
 * pg's own `query_timeout` does this with a timer per statement. Each timer's closure holds its query and, through
 * it, the rows it is receiving; with a timer per request that kept most rows of a busy server alive across two
 * young-generation collections, so they were copied and promoted (docs/performance.md, "The map"). The watch costs
 * nothing per statement and holds no statement: it stamps the statement object itself.
 */
export function watchStatements(pool: pg.Pool, limitMs: number, everyMs = 1000): () => void {
  const clients = new Set<WatchedClient>();
  pool.on('connect', (client) => clients.add(client as unknown as WatchedClient));
  pool.on('remove', (client) => clients.delete(client as unknown as WatchedClient));
  const timer = setInterval(() => {
    const now = Date.now();
    for (const client of clients) {
      const statement = client._activeQuery as (object & { [SEEN]?: number }) | null | undefined;
      if (!statement) continue;
      const seen = (statement[SEEN] ??= now);
      if (now - seen >= limitMs) {
        clients.delete(client);
        client.connection?.stream?.destroy();
      }
    }
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
