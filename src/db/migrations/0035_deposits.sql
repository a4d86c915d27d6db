-- Deposits taken through the project owner's own Stripe account when a visitor holds a unit. Only Stripe's ids are
-- kept (the Checkout Session, its PaymentIntent, the refund): nothing card-related. Amounts are in the currency's
-- minor unit (cents), as Stripe counts them.
create table deposits (
  id                 char(24) primary key,
  project_id         char(24) not null references projects (id) on delete cascade,
  unit_id            char(24) references units (id) on delete set null,
  lead_id            char(24) references leads (id) on delete set null,
  -- The hold the deposit secures (holds.id; units.held_by names it while it holds the unit).
  hold_id            char(24) not null,
  -- The connected account the session was created on (the owner's, at the time).
  account_id         text not null,
  session_id         text not null unique,
  payment_intent_id  text,
  refund_id          text,
  amount             bigint not null check (amount > 0),
  currency           text not null,
  status             text not null check (status in ('pending', 'paid', 'expired', 'refunded')),
  buyer_name         text not null,
  buyer_email        text not null,
  created_at         timestamptz not null,
  -- The end of the payment window: the hold lapses then unless paid.
  expires_at         timestamptz not null,
  paid_at            timestamptz,
  expired_at         timestamptz,
  refunded_at        timestamptz,
  -- When the reconciliation pass last asked Stripe about it (pending ones, oldest asked first).
  checked_at         timestamptz
);
create index deposits_project_idx on deposits (project_id, created_at desc);
create index deposits_pending_idx on deposits (checked_at nulls first) where status = 'pending';

-- Each Stripe event is handled once across nodes and restarts: its id is inserted in the transaction of its effect.
create table payment_events (
  id           text primary key,
  type         text not null,
  received_at  timestamptz not null
);
