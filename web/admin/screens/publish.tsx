import { useEffect, useState } from 'preact/hooks';
import { all, api, ApiError, etagOf } from '../api.ts';
import { pageUrl } from '../features.ts';
import type { Floor, Project, Unit } from '../types.ts';
import { ErrorNotice, Loading, Notice, PageTitle, useLoad, when } from '../ui.tsx';

export const isDraft = (p: Project) => p.published === false;

export interface Check {
  id: string;
  ok: boolean;
  text: string;
  /** Where to fix it. */
  href: string;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const names = (list: { name: string }[], max = 5) =>
  list
    .slice(0, max)
    .map((x) => x.name)
    .join(', ') + (list.length > max ? ` and ${list.length - max} more` : '');

/** What a sales manager would want done before the page goes public. A list to read, never a gate. */
export function checklist(p: Project, floors: Floor[], units: Unit[]): Check[] {
  const base = `/admin/projects/${p._id}`;
  const unpriced = units.filter((u) => typeof u.price !== 'number' && !u.unitPriceTBD);
  const drawn = new Set(units.filter((u) => u.path && u.floor).map((u) => u.floor));
  const bare = floors.filter((f) => !f.floorplanUrl || !drawn.has(f._id));
  const formsOpen = p.enableForms === true && !p.formsSendTo;
  const holdsOpen = p.onHoldExperienceEnabled === true && !(Number(p.onHoldMinsDuration) > 0);
  return [
    {
      id: 'address',
      ok: !!p.namespace,
      text: p.namespace ? `Public address ${pageUrl(p.namespace)}` : 'No public address yet',
      href: `${base}/settings#set-general`,
    },
    { id: 'units', ok: units.length > 0, text: units.length ? plural(units.length, 'unit') : 'No units yet', href: `${base}/units` },
    {
      id: 'prices',
      ok: !unpriced.length,
      text: unpriced.length ? `${plural(unpriced.length, 'unit')} without a price: ${names(unpriced)}` : 'Every unit has a price (or “price to be decided”)',
      href: `${base}/units`,
    },
    {
      id: 'floors',
      ok: !bare.length && floors.length > 0,
      text: bare.length ? `Floors without a plan or shapes: ${names(bare)}` : floors.length ? 'Every floor has a plan and shapes' : 'No floors yet',
      href: `${base}/floors`,
    },
    {
      id: 'forms',
      ok: !formsOpen,
      text: formsOpen
        ? 'Enquiry forms are on but nobody receives them (no e-mail to send them to)'
        : p.enableForms
          ? `Enquiries go to ${String(p.formsSendTo)}`
          : 'Enquiry forms are off',
      href: `${base}/settings#set-forms`,
    },
    {
      id: 'holds',
      ok: !holdsOpen,
      text: holdsOpen
        ? 'Visitors can hold units but a hold has no duration'
        : p.onHoldExperienceEnabled
          ? `A hold lasts ${String(p.onHoldMinsDuration)} minutes`
          : 'Holds are off',
      href: `${base}/settings#set-holds`,
    },
  ];
}

function Checklist({ checks }: { checks: Check[] }) {
  return (
    <ul class="checklist" aria-label="Before publishing">
      {checks.map((c) => (
        <li key={c.id} class={c.ok ? 'done' : 'todo'}>
          <span class="mark" aria-hidden="true">
            {c.ok ? '✓' : '!'}
          </span>
          <span>
            <span class="sr-only">{c.ok ? 'Done: ' : 'To do: '}</span>
            {c.text}
            {!c.ok && (
              <>
                {' '}
                <a href={c.href}>Fix</a>
              </>
            )}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** A signed address (24 hours) that opens the draft page for whoever holds it. */
function PreviewLink({ project }: { project: Project }) {
  const [link, setLink] = useState<{ url: string; expiresAt: string }>();
  const [error, setError] = useState<unknown>();
  const get = async () => {
    setError(undefined);
    try {
      const l = await api.get(`/projects/${project._id}/preview-link`);
      setLink(l);
      window.open(l.url, '_blank', 'noopener');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="preview-link">
      <button type="button" class="secondary" onClick={get}>
        Preview the draft page
      </button>
      <ErrorNotice error={error} />
      {link && (
        <p class="small">
          Preview link (anyone with it can look until {when(link.expiresAt)}):{' '}
          <a href={link.url} target="_blank" rel="noopener noreferrer" id="preview-link">
            {link.url}
          </a>
        </p>
      )}
    </div>
  );
}

/** The explicit publishing step: the checklist, a preview of the draft, and Publish (or back to draft). */
export function Publish({ project, onProject }: { project: Project; onProject: (p: Project) => void }) {
  // The checklist reads the project as it is now (a colleague may have changed its settings since it was opened).
  const data = useLoad(
    () =>
      Promise.all([
        api.get(`/projects/${project._id}`),
        all('/floors', { query: { project: project._id } }),
        all('/units', { query: { project: project._id } }),
      ]),
    [project._id],
  );
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  useEffect(() => {
    const fresh = data.data?.[0];
    if (fresh && fresh.__v > project.__v) onProject(fresh);
  }, [data.data]);
  const draft = isDraft(project);
  const setPublished = async (published: boolean) => {
    setError(undefined);
    try {
      onProject(await api.patch(`/projects/${project._id}`, { body: { published }, ifMatch: etagOf(project) }));
      setNews(published ? 'Published: the page is public now.' : 'Back to draft: the page is hidden from the public.');
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('The project changed meanwhile; reload and try again.') : err);
    }
  };
  if (data.loading && !data.data) return <Loading what="Checking the project" />;
  const [fresh, floors, units] = data.data ?? [project, [], []];
  const checks = checklist(fresh.__v > project.__v ? fresh : project, floors, units);
  const todo = checks.filter((c) => !c.ok).length;
  return (
    <section class="publish">
      <PageTitle>Publish</PageTitle>
      <p>
        This project is <span class={`badge ${draft ? 'draft' : 'live'}`}>{draft ? 'a draft' : 'published'}</span>.{' '}
        {draft ? 'Only your team sees its page, through a preview link.' : 'Anyone with its address sees its page.'}
      </p>
      <ErrorNotice error={error || data.error} />
      <Notice kind="ok">{news}</Notice>
      <h2>Before publishing</h2>
      <p class="muted small">{todo ? `${todo} thing${todo === 1 ? '' : 's'} to look at. You can publish anyway.` : 'Everything looks ready.'}</p>
      <Checklist checks={checks} />
      <div class="row wrap publish-actions">
        {draft ? (
          <button type="button" onClick={() => setPublished(true)}>
            Publish {project.name}
          </button>
        ) : (
          <button type="button" class="secondary" onClick={() => setPublished(false)}>
            Back to draft
          </button>
        )}
        {draft && <PreviewLink project={project} />}
      </div>
    </section>
  );
}
