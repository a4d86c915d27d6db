import type { Project, User } from './types.ts';

/** Whether the user may change the project's settings, team and integrations: its owner, an administrator of it, or a platform administrator. */
export const canManage = (p: Project, u: User) => u.role === 'admin' || p.user === u._id || p.administrators.includes(u._id);
