import { useState } from 'preact/hooks';
import { api, ApiError, etagOf } from '../api.ts';
import { experimental } from '../experimental.ts';
import type { Floor, Unit } from '../types.ts';

/** An outline proposed from the plan picture (GET /floors/{id}/outline-suggestions). */
export type Suggestion = { path: string; box: { x: number; y: number; width: number; height: number }; fill: number };

interface SuggestionsArgs {
  floor: Floor;
  /** The floor's units in plan order. */
  list: Unit[];
  setUnits: (units: Unit[]) => void;
  reloadUnits: () => void;
  setNews: (news: string) => void;
  setError: (err: unknown) => void;
}

/** The outlines suggested for the floor's plan, and giving them in order to the units that have none. */
export function useSuggestions({ floor: f, list, setUnits, reloadUnits, setNews, setError }: SuggestionsArgs) {
  const [suggestions, setSuggestions] = useState<Suggestion[]>();
  const suggest = async () => {
    setError(undefined);
    try {
      const found = (await api.get(`/floors/${f._id}/outline-suggestions`)).suggestions;
      setSuggestions(found);
      setNews(
        found.length
          ? `${found.length} enclosed area${found.length === 1 ? '' : 's'} found on the plan, numbered in reading order. Check them, then use them, or pick a unit and click an area to give it that outline.`
          : 'No enclosed areas found on this plan (it needs dark walls on a light ground, uploaded here); draw the outlines by hand.',
      );
    } catch (err) {
      setError(err);
    }
  };
  /** The suggestions in order to the units without an outline in plan order, in one all-or-nothing change. */
  const acceptAll = async () => {
    const undrawn = list.filter((u) => !u.path);
    const pairs = undrawn.slice(0, suggestions?.length ?? 0).map((u, i) => {
      const ifMatch = etagOf(u);
      return { _id: u._id, path: suggestions?.[i]?.path ?? '', ...(ifMatch ? { ifMatch } : {}) };
    });
    if (!pairs.length) return;
    setError(undefined);
    try {
      const saved = await api.patch('/units', { body: pairs });
      const byId = new Map(saved.map((u) => [u._id, u]));
      setUnits(list.map((u) => byId.get(u._id) ?? u));
      setSuggestions(undefined);
      setNews(`${saved.length} outline${saved.length === 1 ? '' : 's'} saved: ${saved.map((u) => u.name).join(', ')}. Click a unit on the plan to adjust it.`);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('A unit changed meanwhile; reloaded — suggest again.') : err);
      if (err instanceof ApiError && err.status === 412) reloadUnits();
    }
  };
  return { suggestions, suggest, acceptAll, hide: () => setSuggestions(undefined) };
}

type Suggested = ReturnType<typeof useSuggestions>;

/** Suggest, use the suggestions, hide them. */
export function SuggestBar({ floor: f, list, suggested }: { floor: Floor; list: Unit[]; suggested: Suggested }) {
  const { suggestions } = suggested;
  const n = Math.min(suggestions?.length ?? 0, list.filter((u) => !u.path).length);
  return (
    <div class="row wrap suggest">
      {f.floorplanUrl && experimental() && (
        <button type="button" class="secondary" onClick={suggested.suggest}>
          Suggest outlines from the plan <span class="badge">experimental</span>
        </button>
      )}
      {n > 0 && (
        <button type="button" onClick={suggested.acceptAll}>
          Use {n} suggestion{n === 1 ? '' : 's'} for the units without an outline, in order
        </button>
      )}
      {suggestions && (
        <button type="button" class="secondary" onClick={suggested.hide}>
          Hide suggestions
        </button>
      )}
    </div>
  );
}

/**
 * The suggested areas over the plan, numbered in their top left corners (a plan's own labels sit in the middle) in the order they would be given to units; while a unit is being drawn a
 * click on one makes it that unit's outline (then adjusted and saved as any).
 */
export function SuggestedShapes(props: { viewBox: string; suggested: Suggested; picking: boolean; onPick: (path: string) => void }) {
  const { viewBox, suggested, picking, onPick } = props;
  const { suggestions } = suggested;
  if (!suggestions) return null;
  return (
    <svg viewBox={viewBox} class={`suggestions${picking ? ' picking' : ''}`} aria-label="Suggested outlines">
      {suggestions.map((s, i) => (
        <g key={i} class="suggestion" onClick={() => picking && onPick(s.path)}>
          <path d={s.path} />
          <text x={s.box.x + 8} y={s.box.y + 8} dominant-baseline="hanging" class="shape-label">
            {i + 1}
          </text>
        </g>
      ))}
    </svg>
  );
}
