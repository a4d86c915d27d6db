-- Plans (BILLING=stripe): each user's Stripe subscription as last read back from Stripe, the ids its projects are
-- billed on, and when its projects went to draft after it ended unpaid. The user's own `paymentsCustomer`,
-- `subscription` and `appliedTrial` are kept in their profile; this row is what the service works from.
create table subscriptions (
  user_id             char(24) primary key references users (id) on delete cascade,
  customer_id         text not null,
  subscription_id     text not null unique,
  -- The subscription item the user's published projects are billed on (its quantity is their number).
  item_id             text,
  price_id            text,
  -- starter, pro, or null for a price that is neither of the two configured.
  plan                text,
  status              text not null,
  trial_end           timestamptz,
  current_period_end  timestamptz,
  cancel_at_period_end boolean not null default false,
  -- Set when the period ended unpaid and the user's projects were queued to go to draft (once per lapse).
  lapsed_at           timestamptz,
  -- The period end the owner was last warned about after a failed payment (one warning per period).
  payment_warned_for  timestamptz,
  updated_at          timestamptz not null
);
create index subscriptions_lapse_idx on subscriptions (current_period_end) where lapsed_at is null;
