import { api, ApiError, etagOf, type RequestBody } from '../api.ts';
import type { Lead, TeamMember, User } from '../types.ts';
import { DepositLine } from './deposits.tsx';

export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'lost'] as const;
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
export const localTime = (iso: string | undefined) => (iso ? dateTime.format(new Date(iso)) : '—');
export const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
export const fullName = (l: Lead) => [l.firstName, l.lastName].filter(Boolean).join(' ');

/** A colleague as people know them: their name, else their e-mail; "(you)" for the one signed in. */
export const memberLabel = (m: TeamMember, me: User | undefined) => `${m.name ?? m.email}${m._id === me?._id ? ' (you)' : ''}`;

/** Where a hold lead's hold stands, in words: "Hold active until 3:05 PM", "Hold expired", "Hold converted". */
export function holdText(l: Lead): string | undefined {
  if (!l.holdState) return undefined;
  if (l.holdState === 'active') return `Hold active${l.holdUntil ? ` until ${timeOnly.format(new Date(l.holdUntil))}` : ''}`;
  return `Hold ${l.holdState}`;
}

/** Each lead's save under way: the next change of the same lead waits for it and sends the version it answered. */
const saving = new Map<string, Promise<Lead | undefined>>();

/**
 * A change of one lead, after any change of it still on its way: notes saved on leaving the field and an assignee
 * picked at once are two saves, and the second must name the version the first made, not the one the row showed.
 */
function saveInTurn(lead: Lead, body: RequestBody<'/leads/{id}', 'patch'>): Promise<Lead> {
  const before = saving.get(lead._id) ?? Promise.resolve(undefined);
  const save = before.then((latest) => api.patch(`/leads/${lead._id}`, { body, ifMatch: etagOf(latest ?? lead) }));
  const turn = save.then(
    (saved) => saved,
    () => undefined,
  );
  saving.set(lead._id, turn);
  void turn.then(() => saving.get(lead._id) === turn && saving.delete(lead._id));
  return save;
}

export type RowProps = {
  lead: Lead;
  /** With "one row per person": the person's other leads on this project, newest first (the row works the newest). */
  history: Lead[];
  team: TeamMember[];
  projectName: string;
  unitName: (l: Lead) => string;
  me: User | undefined;
  onSaved: (l: Lead) => void;
  onError: (e: unknown) => void;
};

/** A person's earlier leads on the project, folded: when, from where, which unit, how their hold went. */
function History({ history, unitName }: { history: Lead[]; unitName: (l: Lead) => string }) {
  if (!history.length) return null;
  return (
    <details class="history">
      <summary>Earlier contacts ({history.length})</summary>
      <ol>
        {history.map((h) => (
          <li key={h._id}>
            {localTime(h.createdAt)} · {h.source ? cap(h.source) : 'Lead'}
            {unitName(h) && ` · ${unitName(h)}`}
            {holdText(h) && ` · ${holdText(h)}`}
            {h.message && <div class="muted">{h.message}</div>}
          </li>
        ))}
      </ol>
    </details>
  );
}

/** The answers the visitor gave: the lock screen's own questions (`questions`) and the custom form's fields (`customFields`). */
function Answers({ lead: l }: { lead: Lead }) {
  const pairs = [...(l.questions ?? []).map((q) => [q.question, q.answer]), ...(l.customFields ?? []).map((f) => [f.key, f.value])];
  if (!pairs.length) return null;
  return (
    <dl class="answers">
      {pairs.map(([q, a], i) => (
        <div key={i}>
          <dt>{q}</dt>
          <dd>{a}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Where the lead came from, its hold's state and, for a hold that took one, its deposit (one box: the cell's label beside it on a phone). */
function SourceCell({ lead: l, hold }: { lead: Lead; hold: string | undefined }) {
  return (
    <td data-label="Source">
      <div>
        <span>
          {l.source ? cap(l.source) : ''}
          {hold && <span class={`badge hold-${l.holdState}`}>{hold}</span>}
        </span>
        {l.deposit && (
          <div class="small">
            <DepositLine project={l.project} d={l.deposit} />
          </div>
        )}
      </div>
    </td>
  );
}

/** One lead (or one person: their newest lead and their history), its status, assignee and notes worked in place. */
export function LeadRow({ lead: l, history, team, projectName, unitName, me, onSaved, onError }: RowProps) {
  const name = fullName(l) || '(no name)';
  const patch = async (body: RequestBody<'/leads/{id}', 'patch'>) => {
    onError(undefined);
    try {
      onSaved(await saveInTurn(l, body));
    } catch (err) {
      onError(err instanceof ApiError && err.status === 412 ? new Error(`${name} was changed by a colleague meanwhile; refresh to see their version.`) : err);
    }
  };
  const pick = (value: string) => {
    const status = LEAD_STATUSES.find((s) => s === value);
    if (status) void patch({ status });
  };
  const hold = holdText(l);
  // An assignee who has since left the team is still shown, by name when the team list knows it.
  const assigneeKnown = !l.assignee || team.some((m) => m._id === l.assignee);
  const repeats = (l.contactCount ?? 1) > 1;
  return (
    <tr class={repeats ? 'repeat' : undefined}>
      <td class="who" data-label="Name">
        <strong>{name}</strong>
        {repeats && (
          <span class="badge repeat-badge" title="Leads this e-mail has left on this project">
            {l.contactCount} contacts
          </span>
        )}
        <div class="small">
          {l.email && <a href={`mailto:${l.email}`}>{l.email}</a>} {l.phone && <a href={`tel:${l.phone}`}>{l.phone}</a>}
        </div>
        <History history={history} unitName={unitName} />
      </td>
      <td data-label="Received">{localTime(l.createdAt)}</td>
      <td data-label="Project">{projectName}</td>
      <td data-label="Unit">{unitName(l)}</td>
      <SourceCell lead={l} hold={hold} />
      <td data-label="Status">
        <select aria-label={`Status of ${name}`} value={l.status} onChange={(e) => pick(e.currentTarget.value)}>
          {LEAD_STATUSES.map((s) => (
            <option key={s} value={s}>
              {cap(s)}
            </option>
          ))}
        </select>
      </td>
      <td data-label="Assignee">
        <select
          aria-label={`Assignee of ${name}`}
          value={l.assignee ?? ''}
          onChange={(e) => patch({ assignee: (e.target as HTMLSelectElement).value || null })}
        >
          <option value="">Nobody</option>
          {team.map((m) => (
            <option key={m._id} value={m._id} title={m.email}>
              {memberLabel(m, me)}
            </option>
          ))}
          {!assigneeKnown && l.assignee && <option value={l.assignee}>A former member of the team</option>}
        </select>
      </td>
      <td data-label="Notes">
        <textarea
          aria-label={`Notes on ${name}`}
          rows={2}
          defaultValue={l.notes ?? ''}
          onBlur={(e) => (e.target as HTMLTextAreaElement).value !== (l.notes ?? '') && patch({ notes: (e.target as HTMLTextAreaElement).value || null })}
        />
      </td>
      <td class="msg small" data-label="Message">
        {l.message}
        <Answers lead={l} />
      </td>
    </tr>
  );
}
