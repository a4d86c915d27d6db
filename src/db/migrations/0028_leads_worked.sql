-- Leads as a sales team works them: a status, notes and an assignee, changed by PATCH /leads/{id} under If-Match
-- (so a lead now has a version and a time of its last change, like every other edited record).
alter table leads add column status text not null default 'new' check (status in ('new', 'contacted', 'qualified', 'lost'));
alter table leads add column notes text;
-- A member of the project's team; a user who is deleted leaves the lead unassigned.
alter table leads add column assignee char(24) references users(id) on delete set null;
alter table leads add column version integer not null default 1;
alter table leads add column updated_at timestamptz;
update leads set updated_at = created_at;
alter table leads alter column updated_at set not null;
alter table leads alter column updated_at set default now();
-- The inbox across projects lists newest first; per project the existing (project_id, created_at) index serves.
create index leads_created_idx on leads (created_at desc, id desc);
create index leads_assignee_idx on leads (assignee) where assignee is not null;
