/**
 * Every PostgreSQL advisory lock the service takes, in one table, so no two kinds of work can share an id by
 * accident (the hold sweeper once shared the outbox's start lock and was skipped whenever a node installed the
 * outbox). Ids are single bigint keys; per-key locks use the two-int form `(namespace, hashtext(key))`, which
 * PostgreSQL keeps in a separate key space from the single bigint ones. A unit test fails on a duplicate.
 */
export const LOCKS = {
  /** Migrations: nodes starting together take turns. */
  migrate: 7_346_001,
  /** pg-boss installs its tables and creates queues one node after another. */
  outboxStart: 7_346_002,
  /** One sweep of lapsed holds per interval across every node. */
  holdSweep: 7_346_003,
  /** Insights: one node at a time deletes raw events past INSIGHTS_RETENTION_DAYS (per batch). */
  insightsRetention: 7_346_029,
  /** Insights: one node at a time claims the weekly reports that are due. */
  insightsReports: 7_346_030,
} as const;

/** Namespaces of the two-int form: the second key is `hashtext` of the item locked. */
export const KEYED_LOCKS = {
  /** One client's holds are counted and placed one request at a time. */
  clientHolds: 7_346,
  /** One allocation's worksheets are counted and submitted one request at a time (its bound holds under concurrency). */
  allocationWorksheets: 7_347,
  /** One unit's waiting list is ranked, re-ranked and offered one transaction at a time. */
  unitWaitingList: 7_348,
} as const;
