-- A realtor may leave their e-mail with a worksheet, so the sales team's decision (accepted, declined) is mailed to them.
alter table worksheets add column realtor_email text;
