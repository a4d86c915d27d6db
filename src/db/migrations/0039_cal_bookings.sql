-- Each Cal.com booking a project was told of, by the booking's uid, and the lead it made: a delivery Cal.com sends
-- again finds its uid here and makes no second lead; a rescheduled booking's new uid points at the same lead. The row
-- outlives its lead (erased on a buyer's request) so a late retry does not bring the lead back.
create table cal_bookings (
  project_id text not null references projects (id) on delete cascade,
  uid text not null,
  lead_id text references leads (id) on delete set null,
  created_at timestamptz not null,
  primary key (project_id, uid)
);

create index cal_bookings_lead on cal_bookings (lead_id);
