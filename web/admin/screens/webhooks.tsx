import type { components } from '../../api-schema.d.ts';
import { useState } from 'preact/hooks';
import { api, type RequestBody } from '../api.ts';
import type { Project, User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, useLoad, when } from '../ui.tsx';
import { canManage } from '../access.ts';

type Hook = components['schemas']['Webhook'];
type Delivery = components['schemas']['WebhookDelivery'];

/** An event a webhook may be sent, as the document names it. */
type EventType = RequestBody<'/projects/{id}/webhooks', 'post'>['events'][number];

const TYPES = [
  '*',
  'project.updated',
  'floor.created',
  'floor.updated',
  'floor.deleted',
  'unit.created',
  'unit.updated',
  'unit.deleted',
  'lead.created',
  'lead.updated',
  'unit.held',
  'unit.hold_expired',
  'unit.hold_released',
  'unit.hold_extended',
  'inventory.imported',
  'worksheet.submitted',
  'worksheet.accepted',
  'worksheet.declined',
  'deposit.pending',
  'deposit.paid',
  'deposit.expired',
  'deposit.refunded',
] as const satisfies readonly EventType[];

/** Fails to compile when the document names an event type this list does not offer. */
const _offersEveryType: Exclude<EventType, (typeof TYPES)[number]> extends never ? true : false = true;

export function Webhooks({ project, user }: { project: Project; user: User }) {
  const base = `/projects/${project._id}/webhooks` as const;
  const hooks = useLoad(() => api.get(base), [project._id]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['*']);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<unknown>();
  const [open, setOpen] = useState<string>();
  if (!canManage(project, user)) return <p>Only the owner and administrators manage webhooks.</p>;
  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const h = await api.post(base, { body: { url, events } });
      setSecret(h.secret);
      setUrl('');
      void hooks.reload();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (h: Hook) => {
    if (!confirm(`Delete the webhook to ${h.url}?`)) return;
    try {
      await api.del(`${base}/${h._id}`);
      void hooks.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <PageTitle>Webhooks</PageTitle>
      <ErrorNotice error={error || hooks.error} />
      {secret && (
        <Notice kind="warn">
          Signing secret (shown only now, copy it): <code>{secret}</code>
        </Notice>
      )}
      {hooks.loading && !hooks.data ? <Loading /> : null}
      <ul class="hooks">
        {hooks.data?.map((h) => (
          <li key={h._id} class="card">
            <strong>{h.url}</strong>
            <div class="small muted">{h.events.includes('*') ? 'Every event' : h.events.join(', ')}</div>
            <div class="row">
              <button type="button" class="secondary" aria-expanded={open === h._id} onClick={() => setOpen(open === h._id ? undefined : h._id)}>
                Deliveries
              </button>
              <button type="button" class="secondary danger" onClick={() => remove(h)}>
                Delete
              </button>
            </div>
            {open === h._id && (
              <div class="table-wrap">
                <Deliveries url={`${base}/${h._id}/deliveries`} />
              </div>
            )}
          </li>
        ))}
      </ul>
      <form class="card" onSubmit={create} aria-label="New webhook">
        <Field label="Send events to (https address)" type="url" required value={url} onValue={setUrl} />
        <EventChecks events={events} setEvents={setEvents} />
        <button type="submit" disabled={!events.length}>
          Add webhook
        </button>
      </form>
    </section>
  );
}

function Deliveries({ url }: { url: `/projects/${string}/webhooks/${string}/deliveries` }) {
  const list = useLoad(() => api.get(url), [url]);
  const [error, setError] = useState<unknown>();
  const retry = async (d: Delivery) => {
    try {
      await api.post(`${url}/${d._id}/retry`);
      void list.reload();
    } catch (err) {
      setError(err);
    }
  };
  if (list.loading && !list.data) return <Loading />;
  return (
    <div>
      <ErrorNotice error={error || list.error} />
      {list.data?.length ? (
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Last answer</th>
              <th scope="col">Attempts</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((d) => {
              const last = d.attempts.at(-1);
              return (
                <tr key={d._id}>
                  <td>{when(d.createdAt)}</td>
                  <td>
                    {d.event.type} <span class="muted small">#{d.event.seq}</span>
                  </td>
                  <td>{d.status}</td>
                  <td>{last ? (last.responseStatus ?? last.error ?? '—') : 'not sent yet'}</td>
                  <td>{d.attempts.length}</td>
                  <td>
                    <button type="button" class="secondary small" onClick={() => retry(d)} aria-label={`Send ${d.event.type} #${d.event.seq} again`}>
                      Send again
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : (
        <p class="muted">No deliveries yet.</p>
      )}
    </div>
  );
}

/** The events a webhook is sent: each type, or everything (`*`). */
function EventChecks({ events, setEvents }: { events: EventType[]; setEvents: (events: EventType[]) => void }) {
  return (
    <fieldset class="checks">
      <legend>Events</legend>
      {TYPES.map((t) => (
        <label key={t}>
          <input
            type="checkbox"
            checked={events.includes(t)}
            onChange={(e) => setEvents((e.target as HTMLInputElement).checked ? [...events, t] : events.filter((x) => x !== t))}
          />{' '}
          {t === '*' ? 'Everything' : t}
        </label>
      ))}
    </fieldset>
  );
}
