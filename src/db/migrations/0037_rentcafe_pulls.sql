-- RENTCafé pulls go through the inventory import as the FTP feed does: their syncs are recorded with their own
-- source, and the schedule claims each project's pull per source (a project may have both).
alter table inventory_syncs drop constraint inventory_syncs_source_check;
alter table inventory_syncs add constraint inventory_syncs_source_check check (source in ('upload', 'ftp', 'rentcafe'));

alter table inventory_feed_claims add column source text not null default 'ftp';
alter table inventory_feed_claims drop constraint inventory_feed_claims_pkey;
alter table inventory_feed_claims add primary key (project_id, source);
