import { useEffect, useState } from 'preact/hooks';
import { useId } from '../ui.tsx';

/** One of the lock screen's own questions (`lockScreenCustomQuestions`): its words, and the page language it is asked in ('' every one). */
type Question = { lang: string; value: string };

/** The page's languages (the Page language setting), and every one. */
const LANGS: [string, string][] = [
  ['', 'Every language'],
  ['en', 'English page'],
  ['fr', 'French page'],
  ['es', 'Spanish page'],
];
/** The service keeps up to 20 questions of up to 500 characters each. */
const MAX = 20;

const rowsOf = (value: unknown): Question[] =>
  (Array.isArray(value) ? (value as unknown[]) : []).map((q) => {
    const o = typeof q === 'object' && q !== null ? (q as { lang?: unknown; value?: unknown }) : {};
    return { lang: typeof o.lang === 'string' ? o.lang : '', value: typeof o.value === 'string' ? o.value : '' };
  });

/** What is saved: the questions with words, a language only where one is chosen. */
const saved = (rows: Question[]) =>
  rows.filter((q) => q.value.trim()).map((q) => (q.lang ? { lang: q.lang, value: q.value.trim() } : { value: q.value.trim() }));

/**
 * The lock screen's own questions: each asked on the lock screen when the page is in its language (or in every one),
 * answered before the visitor sees the homes; the answers are kept on the lead as its questions.
 */
export function LockQuestions({ value, onValue }: { value: unknown; onValue: (v: unknown) => void }) {
  const [rows, setRows] = useState<Question[]>(() => rowsOf(value));
  const id = useId('lq');
  // Discarded or saved elsewhere: the list follows the value (a row still being typed stays while it matches).
  const outside = JSON.stringify(saved(rowsOf(value)));
  useEffect(() => {
    if (JSON.stringify(saved(rows)) !== outside) setRows(rowsOf(value));
  }, [outside]);
  const change = (next: Question[]) => {
    setRows(next);
    onValue(saved(next));
  };
  const edit = (i: number, part: Partial<Question>) => change(rows.map((q, j) => (j === i ? { ...q, ...part } : q)));
  return (
    <fieldset class="field lock-questions wide" aria-describedby={`${id}-hint`}>
      <legend>Own questions on the lock screen</legend>
      <small id={`${id}-hint`} class="hint">
        Asked after the fields above, in the page’s language; each answer is required and kept on the visitor’s lead (leads inbox, export, lead e-mail).
      </small>
      {rows.map((q, i) => (
        <div class="row" key={i}>
          <select aria-label={`Language of question ${i + 1}`} value={q.lang} onChange={(e) => edit(i, { lang: e.currentTarget.value })}>
            {LANGS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
          <input
            id={`${id}-${i}`}
            aria-label={`Question ${i + 1}`}
            value={q.value}
            maxLength={500}
            placeholder="e.g. What is your budget?"
            onInput={(e) => edit(i, { value: e.currentTarget.value })}
          />
          <button type="button" class="secondary" onClick={() => change(rows.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="secondary" id="add-lock-question" disabled={rows.length >= MAX} onClick={() => setRows([...rows, { lang: '', value: '' }])}>
        Add a question
      </button>
    </fieldset>
  );
}
