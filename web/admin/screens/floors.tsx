import { useState } from 'preact/hooks';
import { all, api, ApiError, etagOf } from '../api.ts';
import { sized } from '../media.ts';
import { DropZone } from '../upload.tsx';
import type { Floor, Project, User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Select, useLoad } from '../ui.tsx';
import { canManage } from '../access.ts';

export function Floors({ project, user, onProject }: { project: Project; user: User; onProject: (p: Project) => void }) {
  const floors = useLoad(() => all('/floors', { query: { project: project._id } }), [project._id, project.__v]);
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const list = (floors.data ?? []).slice().sort((a, b) => a.position - b.position);

  const move = async (index: number, by: number) => {
    const ids = list.map((f) => f._id);
    const [id] = ids.splice(index, 1);
    ids.splice(index + by, 0, id);
    setError(undefined);
    try {
      const p = await api.patch(`/projects/${project._id}`, { body: { floors: ids }, ifMatch: etagOf(project) });
      setNews(`${list[index].name} moved ${by < 0 ? 'up' : 'down'}.`);
      onProject(p);
      // Keep focus on the same floor's button after the list redraws.
      requestAnimationFrame(() => document.getElementById(`move-${by < 0 ? 'up' : 'down'}-${id}`)?.focus());
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('Someone else changed the floors meanwhile; the list is reloaded, try again.') : err);
      if (err instanceof ApiError && err.status === 412) onProject(await api.get(`/projects/${project._id}`));
    }
  };
  const duplicate = async (f: Floor) => {
    setError(undefined);
    try {
      // Renumbered: "Level 1" → the next free level, its units 101 → 201 (names without such a number get " (copy)").
      const copy = await api.post(`/floors/${f._id}/duplicate`, { body: { renumber: true } });
      setNews(`${f.name} duplicated as “${copy.name}” with its plan, shapes and ${copy.units.length} unit${copy.units.length === 1 ? '' : 's'}.`);
      onProject(await api.get(`/projects/${project._id}`));
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (f: Floor) => {
    if (!confirm(`Delete ${f.name} and all its units?`)) return;
    try {
      await api.del(`/floors/${f._id}`, { ifMatch: etagOf(f) });
      setNews(`${f.name} deleted.`);
      onProject(await api.get(`/projects/${project._id}`));
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section>
      <PageTitle>Floors and plans</PageTitle>
      <ErrorNotice error={error || floors.error} />
      <Notice kind="ok">{news}</Notice>
      {floors.loading && !floors.data ? <Loading /> : null}
      <ol class="floor-list">
        {list.map((f, i) => (
          <FloorCard
            key={f._id}
            floor={f}
            project={project}
            first={i === 0}
            last={i === list.length - 1}
            manager={canManage(project, user)}
            onMove={(by) => move(i, by)}
            onDuplicate={duplicate}
            onRemove={remove}
            onSaved={() => floors.reload()}
            others={list.filter((o) => o._id !== f._id)}
            onNews={setNews}
          />
        ))}
      </ol>
      <AddFloor project={project} onNews={setNews} onError={setError} onProject={onProject} />
    </section>
  );
}

type CardProps = {
  floor: Floor;
  project: Project;
  first: boolean;
  last: boolean;
  manager: boolean;
  onMove: (by: number) => void;
  onDuplicate: (f: Floor) => void;
  onRemove: (f: Floor) => void;
  onSaved: () => void;
  /** The project's other floors, to copy outlines from. */
  others: Floor[];
  onNews: (news: string) => void;
};

function FloorCard({ floor: f, project, first, last, manager, onMove, onDuplicate, onRemove, onSaved, others, onNews }: CardProps) {
  const [renaming, setRenaming] = useState(false);
  return (
    <li class="card floor">
      <div class="floor-head">
        {renaming ? (
          <RenameFloor
            floor={f}
            onDone={(name) => {
              setRenaming(false);
              if (name) onNews(`${f.name} renamed “${name}”.`);
              onSaved();
            }}
          />
        ) : (
          <strong>{f.name}</strong>
        )}
        <span class="muted small">
          {f.units.length} unit{f.units.length === 1 ? '' : 's'}
        </span>
        <div class="row wrap">
          <button type="button" class="secondary" id={`move-up-${f._id}`} disabled={first} onClick={() => onMove(-1)} aria-label={`Move ${f.name} up`}>
            ↑
          </button>
          <button type="button" class="secondary" id={`move-down-${f._id}`} disabled={last} onClick={() => onMove(1)} aria-label={`Move ${f.name} down`}>
            ↓
          </button>
          {!renaming && (
            <button type="button" class="secondary" onClick={() => setRenaming(true)} aria-label={`Rename ${f.name}`}>
              Rename
            </button>
          )}
          <a class="button" href={`/admin/projects/${project._id}/floors/${f._id}`}>
            Draw units on {f.name}
          </a>
          <button type="button" class="secondary" onClick={() => onDuplicate(f)} aria-label={`Duplicate ${f.name} with its plan, shapes and units`}>
            Duplicate
          </button>
          {manager && (
            <button type="button" class="secondary danger" onClick={() => onRemove(f)}>
              Delete
            </button>
          )}
        </div>
      </div>
      <FloorImage floor={f} onSaved={onSaved} />
      {others.length > 0 && <CopyOutlines floor={f} others={others} onNews={onNews} onSaved={onSaved} />}
    </li>
  );
}

/** The floor's name, changed in place (PATCH /floors/{id} with If-Match). */
function RenameFloor({ floor, onDone }: { floor: Floor; onDone: (name?: string) => void }) {
  const [name, setName] = useState(floor.name);
  const [error, setError] = useState<unknown>();
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    if (name.trim() === floor.name) {
      onDone();
      return;
    }
    try {
      const saved = await api.patch(`/floors/${floor._id}`, { body: { name: name.trim() }, ifMatch: etagOf(floor) });
      onDone(saved.name);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('This floor changed meanwhile; reloaded, try again.') : err);
    }
  };
  return (
    <form class="row wrap rename" onSubmit={save} aria-label={`Rename ${floor.name}`}>
      <Field label={`New name for ${floor.name}`} required value={name} onValue={setName} autoFocus />
      <button type="submit" class="align-end">
        Save name
      </button>
      <button type="button" class="secondary align-end" onClick={() => onDone()}>
        Cancel
      </button>
      <ErrorNotice error={error} />
    </form>
  );
}

/** Outlines taken from another floor's units: 101's for 201, 102's for 202 (POST /floors/{id}/copy-outlines). */
function CopyOutlines({ floor, others, onNews, onSaved }: { floor: Floor; others: Floor[]; onNews: (news: string) => void; onSaved: () => void }) {
  const [from, setFrom] = useState(others[0]?._id ?? '');
  const [error, setError] = useState<unknown>();
  const copy = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const chosen = others.some((o) => o._id === from) ? from : (others[0]?._id ?? '');
      const done = await api.post(`/floors/${floor._id}/copy-outlines`, { body: { from: chosen } });
      const source = others.find((o) => o._id === chosen)?.name ?? 'the other floor';
      const left = done.unmatched.length ? ` Still without one: ${done.unmatched.join(', ')}.` : '';
      onNews(`${done.units.length} outline${done.units.length === 1 ? '' : 's'} copied from ${source} to ${floor.name}.${left}`);
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="row wrap copy-outlines" onSubmit={copy} aria-label={`Copy outlines to ${floor.name}`}>
      <Select
        label={`Copy outlines to ${floor.name} from`}
        value={others.some((o) => o._id === from) ? from : (others[0]?._id ?? '')}
        options={others.map((o): [string, string] => [o._id, o.name])}
        onValue={setFrom}
      />
      <button type="submit" class="secondary align-end">
        Copy outlines
      </button>
      <ErrorNotice error={error} />
    </form>
  );
}

function FloorImage({ floor, onSaved }: { floor: Floor; onSaved: () => void }) {
  const [url, setUrl] = useState(floor.floorplanUrl ?? '');
  const [error, setError] = useState<unknown>();
  const save = async (floorplanUrl: string) => {
    setError(undefined);
    try {
      await api.patch(`/floors/${floor._id}`, { body: { floorplanUrl }, ifMatch: etagOf(floor) });
      onSaved();
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('This floor changed meanwhile; reloaded, try again.') : err);
      if (err instanceof ApiError && err.status === 412) onSaved();
    }
  };
  return (
    <div class="floor-image">
      {floor.floorplanUrl ? (
        <img {...sized(floor.floorplanUrl, '(max-width: 720px) 100vw, 480px')} src={floor.floorplanUrl} alt={`Plan of ${floor.name}`} />
      ) : (
        <p class="muted">No plan image yet.</p>
      )}
      <DropZone label={`Upload a plan for ${floor.name} (PNG, JPEG, WebP, SVG)`} kind="image" onUploaded={([u]) => (setUrl(u), void save(u))} />
      <form
        class="row wrap"
        onSubmit={(e) => {
          e.preventDefault();
          void save(url);
        }}
      >
        <div class="grow">
          <Field label={`…or the plan's address for ${floor.name}`} type="text" value={url} onValue={setUrl} />
        </div>
        <button type="submit" class="secondary align-end">
          Use this address
        </button>
      </form>
      <ErrorNotice error={error} />
    </div>
  );
}

type AddFloorProps = { project: Project; onNews: (news: string) => void; onError: (err: unknown) => void; onProject: (p: Project) => void };

function AddFloor({ project, onNews, onError, onProject }: AddFloorProps) {
  const [name, setName] = useState('');
  const add = async (e: Event) => {
    e.preventDefault();
    onError(undefined);
    try {
      const f = await api.post('/floors', { query: { project: project._id, name } });
      setName('');
      onNews(`Floor “${f.name}” added.`);
      onProject(await api.get(`/projects/${project._id}`));
    } catch (err) {
      onError(err);
    }
  };
  return (
    <form class="row wrap card" onSubmit={add} aria-label="Add a floor">
      <div class="grow">
        <Field label="New floor name" required value={name} onValue={setName} />
      </div>
      <button type="submit" class="align-end">
        Add floor
      </button>
    </form>
  );
}
