-- A worksheet is pushed to the CRMs as a lead is: its push is claimed and its vendor id kept in the same table,
-- keyed by whichever record it is (`subject_id`: the lead's or the worksheet's id; both are object ids).
alter table crm_pushes drop constraint crm_pushes_pkey;
alter table crm_pushes alter column lead_id drop not null;
alter table crm_pushes add column worksheet_id char(24) references worksheets (id) on delete cascade;
alter table crm_pushes add constraint crm_pushes_one_subject check ((lead_id is null) <> (worksheet_id is null));
alter table crm_pushes add column subject_id text generated always as (coalesce(lead_id, worksheet_id::text)) stored;
alter table crm_pushes add primary key (subject_id, integration);
