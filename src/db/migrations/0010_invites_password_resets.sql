-- Invitations to a project or group. The token is kept only as its SHA-256.
create table invites (
  id char(24) primary key,
  token_hash text not null unique,
  target_kind text not null check (target_kind in ('project', 'group')),
  target_id char(24) not null,
  email text not null,
  first_name text,
  last_name text,
  level text not null check (level in ('administrator', 'editor')),
  invited_by char(24) references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by char(24) references users (id) on delete set null,
  revoked_at timestamptz
);
create index invites_target on invites (target_kind, target_id);

-- Password-reset requests. A request for an unknown username is stored too (user_id null), so a request does the
-- same work whether or not the account exists; the token is kept only as its SHA-256.
create table password_resets (
  token_hash text primary key,
  user_id char(24) references users (id) on delete cascade,
  username text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index password_resets_username on password_resets (username, created_at);
create index password_resets_user on password_resets (user_id) where used_at is null;
