import { useEffect, useState } from 'preact/hooks';
import type { Project } from '../types.ts';
import { ErrorNotice, Loading } from '../ui.tsx';
import { appliedText, canApply, changeCount, ImportDiff, runImport, type Preview } from './import-diff.tsx';
import { COLS } from './grid.tsx';

/** Header words the import understands (the sales team's words and the record's own field names), lower case. */
const KNOWN = new Set(
  [
    ...['name', 'floor', 'status', 'availability', 'price', 'bedrooms', 'beds', 'bathrooms', 'baths', 'area', 'sq ft', 'square feet', 'squarefeet'],
    ...['type', 'parking', 'orientation', 'description', 'position', 'isfeatured', 'unitpricetbd', 'specifictype', 'deliverydate', 'inclusions'],
  ].map((w) => w.toLowerCase()),
);
/** The grid's columns as the import names them, for rows pasted without a header. */
const GRID_HEADER = COLS.map((c) => c.key);

/**
 * Rows copied from a spreadsheet, as a file the import reads: tab-separated, the first line naming the columns. A
 * first line whose every cell is a column name is that header; otherwise the columns are the grid's, in its order.
 * Sent as `text/csv`, the type the document gives the import: the service finds the separator (a tab) in the text.
 */
export function pastedRows(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  const first = lines[0].split('\t').map((c) => c.trim().toLowerCase());
  if (first.every((c) => c === '' || KNOWN.has(c)) && first.some((c) => c !== '')) return lines.join('\n');
  return [GRID_HEADER.slice(0, Math.max(1, first.length)).join('\t'), ...lines].join('\n');
}

/** Pasted rows: the import's dry run shown at once, then applied in one step against the same state. */
export function PasteImport({
  project,
  text,
  manager,
  onApplied,
  onClose,
}: {
  project: Project;
  text: string;
  manager: boolean;
  onApplied: (msg: string) => void;
  onClose: () => void;
}) {
  const [preview, setPreview] = useState<Preview>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const body = pastedRows(text);
  useEffect(() => {
    if (!manager) return;
    setPreview(undefined);
    setError(undefined);
    runImport(project._id, body, 'text/csv', { dryRun: true }).then(setPreview, setError);
  }, [text]);
  const apply = async () => {
    if (!preview) return;
    setBusy(true);
    setError(undefined);
    try {
      const done = await runImport(project._id, body, 'text/csv', { dryRun: false, ifMatch: preview.etag });
      onApplied(appliedText(done.answer.summary));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const n = preview ? changeCount(preview.answer) : 0;
  return (
    <section class="card paste" aria-labelledby="paste-h">
      <h2 id="paste-h">Pasted rows</h2>
      {!manager && <p class="muted">Importing rows is for the project's owner and administrators.</p>}
      {manager && !preview && !error && <Loading what="Checking the pasted rows" />}
      <ErrorNotice error={error} />
      {preview && <ImportDiff answer={preview.answer} />}
      <div class="row wrap">
        {preview && (
          <button type="button" disabled={busy || !canApply(preview)} onClick={apply}>
            Apply {n} change{n === 1 ? '' : 's'}
          </button>
        )}
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </section>
  );
}
