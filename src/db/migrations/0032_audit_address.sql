-- The audit log of security events: who (actor_id) from where (address), about which project (project_id) when there
-- is one, read by time and by project, and pruned by age.
alter table audit_log add column address text;
alter table audit_log add column project_id char(24);
create index audit_log_at_idx on audit_log (at);
create index audit_log_project_idx on audit_log (project_id, at) where project_id is not null;
