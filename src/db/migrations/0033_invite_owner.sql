-- An invitation may hand a project or group over: level 'owner' (the owner changes only when the recipient accepts).
alter table invites drop constraint invites_level_check;
alter table invites add constraint invites_level_check check (level in ('administrator', 'editor', 'owner'));
