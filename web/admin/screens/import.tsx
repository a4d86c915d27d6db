import { useState } from 'preact/hooks';
import { ApiError, download, query, request } from '../api.ts';
import type { Project } from '../types.ts';
import { ErrorNotice, Notice, TextArea, useId } from '../ui.tsx';
import { exportCsv } from './units.tsx';

interface Change {
  row: number;
  action: 'create' | 'update' | 'unchanged';
  unit?: string;
  name?: string;
  floor?: string;
  fields?: Record<string, [unknown, unknown]>;
}
interface ImportAnswer {
  dryRun: boolean;
  summary: { created: number; updated: number; unchanged: number; kept: number; errors: number };
  changes: Change[];
  /** `changes` lists the first 1,000 rows; the summary counts all. */
  truncated?: boolean;
  errors: { row: number; column?: string; message: string }[];
  unknownColumns: string[];
  kept: { row: number; unit?: string; name?: string }[];
}

const show = (v: unknown) => (v === undefined || v === null || v === '' ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** CSV in (dry run first, the differences shown, then applied against the same state) and out. */
export function Import({ project, manager, onApplied }: { project: Project; manager: boolean; onApplied: () => void }) {
  const [csv, setCsv] = useState('');
  const [preview, setPreview] = useState<{ answer: ImportAnswer; etag: string | null }>();
  const [result, setResult] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const fileId = useId();
  const url = (dryRun: boolean) => `/projects/${project._id}/inventory/import${query({ dryRun: dryRun ? 'true' : undefined })}`;

  const dryRun = async () => {
    setError(undefined);
    setResult('');
    setBusy(true);
    try {
      const a = await request<ImportAnswer>('POST', url(true), { raw: csv, contentType: 'text/csv' });
      setPreview({ answer: a.data, etag: a.etag });
    } catch (err) {
      // A file with row errors answers 400 with the same report: show it.
      if (err instanceof ApiError && (err.problem as unknown as ImportAnswer).changes) setPreview({ answer: err.problem as unknown as ImportAnswer, etag: null });
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  const apply = async () => {
    if (!preview) return;
    setBusy(true);
    setError(undefined);
    try {
      const a = await request<ImportAnswer>('POST', url(false), { raw: csv, contentType: 'text/csv', ifMatch: preview.etag });
      const s = a.data.summary;
      setResult(`Imported: ${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged${s.kept ? `, ${s.kept} held units kept their status` : ''}.`);
      setPreview(undefined);
      setCsv('');
      onApplied();
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('The inventory changed since this preview; preview again before applying.') : err);
      if (err instanceof ApiError && err.status === 412) setPreview(undefined);
    } finally {
      setBusy(false);
    }
  };
  const onFile = async (e: Event) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (f) {
      setCsv(await f.text());
      setPreview(undefined);
    }
  };
  const doExport = async () => {
    setError(undefined);
    try {
      const a = await exportCsv(project._id);
      download(`${project.namespace || project.name}-units.csv`, a.data);
      setResult('Exported.');
    } catch (err) {
      setError(err);
    }
  };

  const a = preview?.answer;
  const changes = a?.changes.filter((c) => c.action !== 'unchanged') ?? [];
  return (
    <section class="card import" aria-labelledby="import-h">
      <h2 id="import-h">Spreadsheet import and export</h2>
      <div class="row wrap">
        <button type="button" class="secondary" onClick={doExport}>
          Export units as CSV
        </button>
      </div>
      {!manager ? (
        <p class="muted">Importing is for the project's owner and administrators.</p>
      ) : (
        <>
      <div class="field">
        <label for={fileId}>CSV file to import</label>
        <input id={fileId} type="file" accept=".csv,.tsv,.txt,text/csv" onChange={onFile} />
      </div>
      <TextArea label="…or paste the rows (first line: column names)" rows={5} value={csv} onValue={(v) => (setCsv(v), setPreview(undefined))} />
      <div class="row wrap">
        <button type="button" disabled={!csv.trim() || busy} onClick={dryRun}>
          Preview changes
        </button>
        {a && (
          <button type="button" disabled={busy || (a.summary.errors > 0) || !preview?.etag} onClick={apply}>
            Apply {a.summary.created + a.summary.updated} change{a.summary.created + a.summary.updated === 1 ? '' : 's'}
          </button>
        )}
      </div>
      <ErrorNotice error={error} />
      <Notice kind="ok">{result}</Notice>
      {a && (
        <div class="preview-diff" aria-live="polite">
          <p>
            <strong>Preview (nothing changed yet):</strong> {a.summary.created} to create, {a.summary.updated} to update, {a.summary.unchanged} unchanged
            {a.summary.kept ? `, ${a.summary.kept} held units keep their status` : ''}
            {a.summary.errors ? `, ${a.summary.errors} rows with errors (fix them to apply)` : ''}.
          </p>
          {a.truncated && <Notice kind="warn">Only the first {a.changes.length} rows are listed below; the counts above cover every row.</Notice>}
          {a.unknownColumns.length > 0 && <Notice kind="warn">Ignored columns: {a.unknownColumns.join(', ')}</Notice>}
          {a.errors.length > 0 && (
            <ul class="errors">
              {a.errors.map((e, i) => (
                <li key={i}>
                  Row {e.row}
                  {e.column ? `, ${e.column}` : ''}: {e.message}
                </li>
              ))}
            </ul>
          )}
          {changes.length > 0 && (
            <div class="table-wrap">
              <table class="diff">
                <caption class="sr-only">Changes the import would make</caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Unit</th>
                    <th scope="col">Action</th>
                    <th scope="col">Changes</th>
                  </tr>
                </thead>
                <tbody>
                  {changes.map((c) => (
                    <tr key={c.row}>
                      <td>{c.row}</td>
                      <td>
                        {c.name}
                        {c.floor ? <span class="muted small"> · {c.floor}</span> : null}
                      </td>
                      <td>{c.action === 'create' ? 'New' : 'Update'}</td>
                      <td>
                        {Object.entries(c.fields ?? {}).map(([k, [before, after]]) => (
                          <div key={k}>
                            {k}: <del>{show(before)}</del> → <ins>{show(after)}</ins>
                          </div>
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      )}
        </>
      )}
    </section>
  );
}
