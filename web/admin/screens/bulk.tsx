import { useState } from 'preact/hooks';
import { api, ApiError, etagOf, type RequestBody } from '../api.ts';
import { FEATURES } from '../features.ts';
import { AVAILABILITY, availabilityLabel, type Unit } from '../types.ts';
import { Field, money, Select } from '../ui.tsx';

/** One unit's change in PATCH /units, as the document has it. */
type UnitChange = RequestBody<'/units', 'patch'>[number];
type Availability = NonNullable<UnitChange['availability']>;
/** What the bar changes (status, price) of one unit, with the version it was read at. */
type Item = Pick<UnitChange, '_id' | 'price' | 'availability'> & { ifMatch: string | null };
/** The last bulk change: which units, and what it said it did. */
export interface LastBulk {
  ids: string[];
  what: string;
}

/** One all-or-nothing PATCH /units (or one PATCH per unit where the service has no bulk route). */
export async function patchUnits(changes: Item[]): Promise<Unit[]> {
  if (FEATURES.inventory) return api.patch('/units', { body: changes.map(({ ifMatch, ...c }) => (ifMatch ? { ...c, ifMatch } : c)) });
  const saved: Unit[] = [];
  for (const { _id, ifMatch, ...fields } of changes) saved.push(await api.patch(`/units/${_id}`, { body: fields, ifMatch }));
  return saved;
}

async function inBatches<T, R>(list: T[], size: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < list.length; i += size) out.push(...(await Promise.all(list.slice(i, i + size).map(fn))));
  return out;
}

const isAvailability = (x: unknown): x is Availability => AVAILABILITY.some((a) => a === x);
/** The fields a bulk change sets, and so the ones its undo puts back. */
const UNDONE: ('price' | 'availability')[] = ['price', 'availability'];

/**
 * The undo of a bulk change, from the change log: each unit's newest history entry holds the values before it. A
 * unit changed again since (its newest entry no longer ends at what it shows) stops the undo, nothing written.
 */
export async function undoBulk(last: LastBulk, current: (id: string) => Unit | undefined): Promise<Unit[]> {
  const items = await inBatches(last.ids, 8, async (id): Promise<Item> => {
    const entry = (await api.get(`/units/${id}/history`, { query: { limit: 1 } })).at(0);
    const u = current(id);
    const again = new Error(`${u?.name ?? 'A unit'} was changed again since; nothing was undone.`);
    const item: Item = { _id: id, ifMatch: etagOf(u) };
    for (const k of UNDONE) {
      const change = entry?.changes?.[k];
      if (!change) continue;
      const [before, after] = change;
      if (!u || u[k] !== after) throw again;
      if (k === 'price' && typeof before === 'number') item.price = before;
      else if (k === 'availability' && isAvailability(before)) item.availability = before;
      else throw new Error(`${u.name} had no ${k} before; nothing was undone.`);
    }
    if (item.price === undefined && item.availability === undefined) throw again;
    return item;
  });
  return patchUnits(items);
}

const conflict = (err: unknown) =>
  err instanceof ApiError && err.status === 412
    ? new Error('Some of these units were changed by someone else meanwhile; nothing was saved. Reload and try again.')
    : err;

type BulkProps = {
  units: Unit[];
  last: LastBulk | undefined;
  onDone: (saved: Unit[], msg: string, last?: LastBulk) => void;
  onUndo: () => Promise<void>;
  onError: (e: unknown) => void;
  /** The project's currency (`currencyOf`), for the example of a price change. */
  currency: string;
};

/** Status or price for every selected unit, in a bar that stays in view; cleared after it applies; the last one undone. */
export function Bulk({ units, last, onDone, onUndo, onError, currency }: BulkProps) {
  const [status, setStatus] = useState<Availability | ''>('');
  const [mode, setMode] = useState<'amount' | 'percent'>('percent');
  const [by, setBy] = useState('');
  const [busy, setBusy] = useState(false);
  const priced = units.filter((u): u is Unit & { price: number } => typeof u.price === 'number');
  const first = priced.at(0);
  const n = Number(by);
  const newPrice = (p: number) => Math.max(0, Math.round(mode === 'amount' ? p + n : p * (1 + n / 100)));
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    onError(undefined);
    try {
      await work();
    } catch (err) {
      onError(conflict(err));
    } finally {
      setBusy(false);
    }
  };
  const apply = (changes: Item[], msg: string) =>
    run(async () => {
      const saved = await patchUnits(changes);
      setStatus('');
      setBy('');
      onDone(saved, msg, { ids: saved.map((u) => u._id), what: msg });
    });
  const undo = last && (
    <button type="button" class="secondary" disabled={busy} onClick={() => run(onUndo)}>
      Undo: {last.what}
    </button>
  );
  if (!units.length) return <div class="bulk card muted small">Select units to change their status or prices together. {undo}</div>;
  return (
    <form class="bulk card" aria-label="Change the selected units" onSubmit={(e) => e.preventDefault()}>
      <div class="row wrap between">
        <strong>{units.length} selected</strong>
        {undo}
      </div>
      <div class="row wrap">
        <StatusChange units={units} status={status} setStatus={setStatus} busy={busy} apply={apply} />
        <Select
          label="Change prices by"
          value={mode}
          options={[
            ['percent', 'Percent'],
            ['amount', 'Amount'],
          ]}
          onValue={setMode}
        />
        <Field label={mode === 'percent' ? 'Percent (e.g. 5 or -3)' : 'Amount (e.g. 10000 or -5000)'} type="number" step="any" value={by} onValue={setBy} />
        <button
          type="button"
          class="align-end"
          disabled={!by || Number.isNaN(n) || !priced.length || busy}
          onClick={() =>
            apply(
              priced.map((u) => ({ _id: u._id, ifMatch: etagOf(u), price: newPrice(u.price) })),
              `${priced.length} prices changed.`,
            )
          }
        >
          Change {priced.length} price{priced.length === 1 ? '' : 's'}
        </button>
      </div>
      {by && !Number.isNaN(n) && first && (
        <p class="muted small" aria-live="polite">
          e.g. {first.name}: {money(first.price, currency)} → {money(newPrice(first.price), currency)}
          {priced.length < units.length ? ` (${units.length - priced.length} without a price are left alone)` : ''}
        </p>
      )}
    </form>
  );
}

type StatusChangeProps = {
  units: Unit[];
  status: Availability | '';
  setStatus: (status: Availability | '') => void;
  busy: boolean;
  apply: (changes: Item[], msg: string) => Promise<void>;
};

/** One status for every selected unit (holds are placed by buyers, not set here). */
function StatusChange({ units, status, setStatus, busy, apply }: StatusChangeProps) {
  return (
    <>
      <Select
        label="Set status"
        value={status}
        options={[['', 'Choose…'], ...AVAILABILITY.filter((a) => a !== 'on_hold').map((a): [Availability, string] => [a, availabilityLabel(a)])]}
        onValue={setStatus}
      />
      <button
        type="button"
        class="align-end"
        disabled={!status || busy}
        onClick={() =>
          status &&
          apply(
            units.map((u) => ({ _id: u._id, ifMatch: etagOf(u), availability: status })),
            `${units.length} units set to ${availabilityLabel(status)}.`,
          )
        }
      >
        Set status
      </button>
    </>
  );
}
