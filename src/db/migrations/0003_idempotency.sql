-- Responses to public writes sent with an Idempotency-Key, replayed to retries with the same key and body.
create table idempotency_keys (
  scope         text not null,
  key           text not null,
  request_hash  text not null,
  status        integer not null,
  body          jsonb,
  created_at    timestamptz not null default now(),
  primary key (scope, key)
);
create index idempotency_keys_created_idx on idempotency_keys (created_at);
