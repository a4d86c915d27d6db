-- Uploads no record refers to: when each was first found so. A file is deleted once it has been unreferenced for
-- MEDIA_ORPHAN_DAYS; a file referred to again (or uploaded again) loses its row and starts over.
create table media_orphans (
  name   text primary key,
  since  timestamptz not null
);

-- One row: when a node last looked for unreferenced files. Claiming it is a conditional upsert, so the look
-- happens once per interval across every node.
create table media_sweep_claims (
  id          smallint primary key check (id = 1),
  claimed_at  timestamptz not null
);
