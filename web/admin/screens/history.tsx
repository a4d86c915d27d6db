import { useEffect, useRef } from 'preact/hooks';
import { api, type Reply } from '../api.ts';
import { shownText as show } from '../csv.ts';
import type { Unit } from '../types.ts';
import { ErrorNotice, Loading, useLoad, when } from '../ui.tsx';

/** One change as GET /units/{id}/history lists it. */
type Entry = Reply<`/units/${string}/history`, 'get'>[number];

const WHAT: Record<string, string> = {
  'unit.created': 'Created',
  'unit.updated': 'Changed',
  'unit.deleted': 'Deleted',
  'unit.held': 'Held',
  'unit.hold_expired': 'Hold lapsed',
  'unit.hold_released': 'Hold released',
  'unit.hold_extended': 'Hold extended',
};
const who = (a: Entry['actor'], me: string) =>
  a.kind === 'public'
    ? 'a visitor'
    : a.kind === 'sync'
      ? 'the inventory feed'
      : a.kind === 'system'
        ? 'the system'
        : a.id === me
          ? 'you'
          : `a colleague${a.id ? ` (user …${a.id.slice(-6)})` : ''}`;

/** A unit's changes, newest first, in a modal dialog. */
export function History({ unit, me, floorName, onClose }: { unit: Unit; me: string; floorName: Map<string, string>; onClose: () => void }) {
  const value = (k: string, v: unknown) => show(k === 'floor' && typeof v === 'string' ? (floorName.get(v) ?? v) : v);
  const ref = useRef<HTMLDialogElement>(null);
  const entries = useLoad(() => api.get(`/units/${unit._id}/history`), [unit._id]);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    const opener = document.activeElement as HTMLElement | null;
    d.showModal();
    return () => opener?.focus();
  }, []);
  return (
    <dialog ref={ref} class="history" aria-labelledby="history-h" onClose={onClose}>
      <h2 id="history-h">History of {unit.name}</h2>
      <ErrorNotice error={entries.error} />
      {entries.loading ? (
        <Loading />
      ) : (
        <ol>
          {(entries.data ?? []).map((e) => (
            <li key={e.seq}>
              <strong>{when(e.at)}</strong> · {WHAT[e.type] ?? 'Changed'} by {who(e.actor, me)}
              <ul>
                {Object.entries(e.changes ?? {}).map(([k, [a, b]]) => (
                  <li key={k}>
                    {k}: {value(k, a)} → {value(k, b)}
                  </li>
                ))}
              </ul>
            </li>
          ))}
          {entries.data?.length === 0 && <li>No changes recorded.</li>}
        </ol>
      )}
      <button type="button" onClick={() => ref.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
