import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { findGroup } from '../groups/groups.repo.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { findTeamAccounts } from './team.repo.ts';
import type { TeamMember } from './team.schemas.ts';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** A profile's name: `fullName`, else `name` and `lastName`; null when none is set. */
export function displayName(profile: Record<string, unknown>): string | null {
  const full = text(profile.fullName) || [text(profile.name), text(profile.lastName)].filter(Boolean).join(' ');
  return full || null;
}

interface Members {
  user_id: string;
  administrators: string[];
  editors: string[];
}

/** A project's or a group's team by name, so colleagues are shown as people rather than ids (the console's leads, team, assignee). */
export class TeamService {
  constructor(private readonly ctx: Ctx) {}

  /** Everyone who may read the project may see who is on its team (404 for a stranger). */
  async list(principal: Principal, projectId: string): Promise<TeamMember[]> {
    const { row } = authorize(principal, await findProjectMembership(this.ctx.db.kysely, projectId), 'read');
    return this.#people(row);
  }

  /** The same for a group: everyone who may read it (404 for a stranger). */
  async listGroup(principal: Principal, groupId: string): Promise<TeamMember[]> {
    const { row } = authorize(principal, await findGroup(this.ctx.db.kysely, groupId), 'read', 'Group');
    return this.#people(row);
  }

  /** The owner, then administrators, then editors, each once, by their account's name and e-mail. */
  async #people(row: Members): Promise<TeamMember[]> {
    const roles: [string, TeamMember['role']][] = [
      [row.user_id, 'owner'],
      ...row.administrators.map((id): [string, TeamMember['role']] => [id, 'administrator']),
      ...row.editors.map((id): [string, TeamMember['role']] => [id, 'editor']),
    ];
    const accounts = new Map((await findTeamAccounts(this.ctx.db.kysely, [...new Set(roles.map(([id]) => id))])).map((a) => [a.id, a]));
    const seen = new Set<string>();
    const team: TeamMember[] = [];
    for (const [id, role] of roles) {
      const account = accounts.get(id);
      if (!account || seen.has(id)) continue;
      seen.add(id);
      team.push({ _id: id, role, name: displayName(account.profile), email: account.username });
    }
    return team;
  }
}
