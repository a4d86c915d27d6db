-- Users, login sessions, refresh-token families and the audit log.
create table users (
  id            char(24) primary key,
  username      text not null,
  password_hash text not null,
  role          text not null default 'user' check (role in ('user', 'admin', 'integration')),
  profile       jsonb not null default '{}'::jsonb,
  secrets       jsonb not null default '{}'::jsonb,
  version       integer not null default 1,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now()
);
create unique index users_username_key on users (lower(username));

-- One row per login; access tokens carry its id as `sid`, refresh tokens belong to it (the token family).
create table sessions (
  id               char(24) primary key,
  user_id          char(24) not null references users(id) on delete cascade,
  impersonator_id  char(24) references users(id) on delete set null,
  created_at       timestamptz not null default now(),
  expires_at       timestamptz not null,
  revoked_at       timestamptz
);
create index sessions_user_idx on sessions (user_id) where revoked_at is null;

create table refresh_tokens (
  token_hash  text primary key,
  session_id  char(24) not null references sessions(id) on delete cascade,
  created_at  timestamptz not null default now(),
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index refresh_tokens_session_idx on refresh_tokens (session_id);

create table audit_log (
  id          bigint generated always as identity primary key,
  at          timestamptz not null default now(),
  actor_id    char(24),
  action      text not null,
  subject_id  char(24),
  detail      jsonb not null default '{}'::jsonb
);
create index audit_log_subject_idx on audit_log (subject_id, at);
