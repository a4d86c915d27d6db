-- Accounts an administrator deactivated: set, the account cannot sign in and its sessions and API tokens are refused.
alter table users add column deactivated_at timestamptz;
