import type { components } from '../../api-schema.d.ts';
import { ApiError, request } from '../api.ts';
import { shownText as show } from '../csv.ts';
import { Notice } from '../ui.tsx';

/** An import's report, as the document gives it. */
export type ImportAnswer = components['schemas']['InventoryImport'];
export type Change = ImportAnswer['changes'][number];
/** A dry run's answer and the ETag that applying it must still match. */
export interface Preview {
  answer: ImportAnswer;
  etag: string | null;
}

export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** The files the import takes: CSV (comma, semicolon or tab separated, found from the text) or a workbook. */
export type FileType = 'text/csv' | typeof XLSX;

/**
 * POST /projects/{id}/inventory/import: a dry run (nothing written) or the real thing with the dry run's ETag. A file
 * with row errors answers 400 with the same report, which is returned as a preview that cannot be applied.
 */
export async function runImport(
  projectId: string,
  body: BodyInit,
  contentType: FileType,
  opts: { dryRun: boolean; ifMatch?: string | null },
): Promise<Preview> {
  try {
    const a = await request('post', `/projects/${projectId}/inventory/import`, {
      query: { dryRun: opts.dryRun || undefined },
      raw: body,
      contentType,
      ifMatch: opts.ifMatch ?? null,
    });
    return { answer: a.data, etag: a.etag };
  } catch (err) {
    if (opts.dryRun && err instanceof ApiError && 'changes' in err.problem) return { answer: err.problem as unknown as ImportAnswer, etag: null };
    if (err instanceof ApiError && err.status === 412) throw new Error('The inventory changed since this preview; preview again before applying.');
    throw err;
  }
}

export const appliedText = (s: ImportAnswer['summary']) =>
  `Imported: ${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged${s.kept ? `, ${s.kept} held units kept their status` : ''}.`;
export const changeCount = (a: ImportAnswer) => a.summary.created + a.summary.updated;
export const canApply = (p: Preview) => p.answer.summary.errors === 0 && !!p.etag && changeCount(p.answer) > 0;

/** What an import would do: counts, ignored columns, row errors, and each changed unit's fields before → after. */
export function ImportDiff({ answer: a }: { answer: ImportAnswer }) {
  const changes = a.changes.filter((c) => c.action !== 'unchanged');
  return (
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
      {changes.length > 0 && <DiffTable changes={changes} />}
    </div>
  );
}

function DiffTable({ changes }: { changes: Change[] }) {
  return (
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
                {Object.entries(c.fields).map(([k, [before, after]]) => (
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
  );
}
