import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Project, Unit } from '../types.ts';
import { DropZone } from '../upload.tsx';
import { ErrorNotice, Notice, Select } from '../ui.tsx';

/**
 * One layout and one set of photos for every unit of a type (PATCH /units/by-type): the type chosen, the layout and
 * the photos uploaded, then applied to all its units on every floor at once.
 */
export function TypeMedia({ project, units, onApplied }: { project: Project; units: Unit[]; onApplied: (news: string) => void }) {
  const types = [...new Set(units.map((u) => u.type).filter((t): t is string => typeof t === 'string' && t !== ''))].sort();
  const [type, setType] = useState('');
  const [layout, setLayout] = useState<string>();
  const [photos, setPhotos] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  if (!types.length) return null;
  const chosen = types.includes(type) ? type : (types[0] ?? '');
  const count = units.filter((u) => u.type === chosen).length;
  const apply = async () => {
    setDone('');
    setBusy(true);
    setError(undefined);
    try {
      const done = await api.patch('/units/by-type', {
        body: {
          project: project._id,
          type: chosen,
          ...(layout ? { layoutUrl: layout, layoutGallery: [layout] } : {}),
          ...(photos.length ? { images: photos } : {}),
        },
      });
      const what = [layout ? 'the layout' : '', photos.length ? `${photos.length} photo${photos.length === 1 ? '' : 's'}` : ''].filter(Boolean).join(' and ');
      const news = `Type ${chosen}: ${what} given to ${done.length} unit${done.length === 1 ? '' : 's'}.`;
      setDone(news);
      onApplied(news);
      setLayout(undefined);
      setPhotos([]);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card type-media" aria-labelledby="type-media-h">
      <h2 id="type-media-h">Layout and photos by type</h2>
      <p class="muted small">Every unit of the type gets them, on every floor; what its units had is replaced.</p>
      <Select label="Unit type" value={chosen} options={types.map((t): [string, string] => [t, t])} onValue={setType} />
      <p class="muted small">
        {count} unit{count === 1 ? '' : 's'} of type {chosen}.
      </p>
      <div class="row wrap">
        <div class="grow">
          <DropZone label={`Layout of type ${chosen}`} kind="image" onUploaded={([u]) => setLayout(u)} />
          {layout && <img class="thumb" src={layout} alt={`Layout of type ${chosen}`} />}
        </div>
        <div class="grow">
          <DropZone label={`Photos of type ${chosen}`} kind="image" multiple onUploaded={(urls) => setPhotos((p) => [...p, ...urls])} />
          <p class="muted small">{photos.length ? `${photos.length} photo${photos.length === 1 ? '' : 's'} ready.` : ''}</p>
        </div>
      </div>
      <button type="button" disabled={busy || (!layout && !photos.length)} onClick={apply}>
        Apply to the {count} unit{count === 1 ? '' : 's'} of type {chosen}
      </button>
      <ErrorNotice error={error} />
      <Notice kind="ok">{done}</Notice>
    </section>
  );
}
