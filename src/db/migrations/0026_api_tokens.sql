-- API tokens: long-lived credentials an integration sends as `Authorization: Bearer sst_…`. Only the SHA-256 of the
-- secret is kept; every request looks the hash up here (no per-node cache), so a deleted row stops working at once on
-- every node. A token goes with its user.
create table api_tokens (
  id            char(24) primary key,
  user_id       char(24) not null references users(id) on delete cascade,
  name          text not null,
  scope         text not null check (scope in ('read', 'write')),
  token_hash    text not null,
  created_at    timestamptz not null default now(),
  expires_at    timestamptz,
  last_used_at  timestamptz
);
create unique index api_tokens_hash_key on api_tokens (token_hash);
create index api_tokens_user_idx on api_tokens (user_id, created_at);
