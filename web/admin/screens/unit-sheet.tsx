import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, etagOf } from '../api.ts';
import type { Unit } from '../types.ts';
import { ErrorNotice, TextArea } from '../ui.tsx';
import { MediaField, MediaList } from '../upload.tsx';
import { UnitDeposits } from './deposits.tsx';

type Info = { label?: string; value?: string }[];
type Draft = Partial<Pick<Unit, 'description' | 'images' | 'unitImageUrl' | 'layoutUrl' | 'layoutGallery' | 'brochurePDF' | 'additionalInfo'>>;

/** Label/value lines the unit sheet lists (e.g. "Ceiling height" / "2.9 m"). */
function InfoRows({ value, onValue }: { value: Info; onValue: (v: Info) => void }) {
  const set = (i: number, k: 'label' | 'value', v: string) => onValue(value.map((row, j) => (j === i ? { ...row, [k]: v } : row)));
  return (
    <fieldset class="info-rows">
      <legend>Additional information</legend>
      {value.map((row, i) => (
        <div class="row" key={i}>
          <input
            aria-label={`Label ${i + 1}`}
            placeholder="e.g. Ceiling height"
            value={row.label ?? ''}
            onInput={(e) => set(i, 'label', (e.target as HTMLInputElement).value)}
          />
          <input
            aria-label={`Value ${i + 1}`}
            placeholder="e.g. 2.9 m"
            value={row.value ?? ''}
            onInput={(e) => set(i, 'value', (e.target as HTMLInputElement).value)}
          />
          <button type="button" class="secondary small" aria-label={`Remove line ${i + 1}`} onClick={() => onValue(value.filter((_, j) => j !== i))}>
            ✕
          </button>
        </div>
      ))}
      <button type="button" class="secondary small" onClick={() => onValue([...value, { label: '', value: '' }])}>
        Add a line
      </button>
    </fieldset>
  );
}

/**
 * A unit's details the buyer's page shows on its sheet: description, photos, layout, brochure, additional information;
 * above them, for the owner and administrators, the deposits buyers paid on it (with links to the Deposits tab).
 * (Finishes are not offered: the page does not show them yet, docs/console.md.)
 */
export function UnitSheet({ unit, manager, onSaved, onClose }: { unit: Unit; manager: boolean; onSaved: (u: Unit) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [draft, setDraft] = useState<Draft>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => opener?.focus();
  }, []);
  const v = <K extends keyof Draft>(k: K): Draft[K] => (k in draft ? draft[k] : unit[k]);
  const set =
    <K extends keyof Draft>(k: K) =>
    (x: Draft[K]) =>
      setDraft((d) => ({ ...d, [k]: x }));
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const info = draft.additionalInfo?.filter((r) => r.label || r.value);
      const body = { ...draft, ...(info ? { additionalInfo: info } : {}) };
      onSaved(await api.patch(`/units/${unit._id}`, { body, ifMatch: etagOf(unit) }));
      ref.current?.close();
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error(`${unit.name} was changed by someone else meanwhile; close and open it again.`) : err);
    } finally {
      setBusy(false);
    }
  };
  const changed = Object.keys(draft).length;
  return (
    <dialog ref={ref} class="sheet" aria-labelledby="sheet-h" onClose={onClose}>
      <form onSubmit={save}>
        <h2 id="sheet-h">Details of {unit.name}</h2>
        {manager && <UnitDeposits unit={unit} />}
        <TextArea label="Description" rows={4} value={v('description')} onValue={set('description')} />
        <div class="two">
          <MediaField label="Main photo" kind="image" value={v('unitImageUrl')} onValue={set('unitImageUrl')} />
          <MediaField label="Layout" kind="image" value={v('layoutUrl')} onValue={set('layoutUrl')} />
        </div>
        <h3>Photos</h3>
        <MediaList label="Photos" value={v('images')} onValue={set('images')} />
        <MediaField label="Brochure" kind="document" value={v('brochurePDF')} onValue={set('brochurePDF')} />
        <InfoRows value={v('additionalInfo') ?? []} onValue={set('additionalInfo')} />
        <ErrorNotice error={error} />
        <div class="row wrap sheet-actions">
          <button type="submit" disabled={!changed || busy}>
            {busy ? 'Saving…' : 'Save details'}
          </button>
          <button type="button" class="secondary" onClick={() => ref.current?.close()}>
            Close
          </button>
        </div>
      </form>
    </dialog>
  );
}
