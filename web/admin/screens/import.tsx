import { useState } from 'preact/hooks';
import { download, fetchFile } from '../api.ts';
import type { Project } from '../types.ts';
import { ErrorNotice, Notice, TextArea, useId } from '../ui.tsx';
import { appliedText, canApply, changeCount, ImportDiff, runImport, XLSX, type FileType, type Preview } from './import-diff.tsx';

/** The import's column names in the sales team's words, as the template writes them. */
export const COLUMNS: [string, string, string][] = [
  ['Name', "the unit's name; an existing name updates that unit", ''],
  ['Floor', "the floor's name", ''],
  ['Status', 'Available, Reserved, Sold, Leased or Unavailable', 'Availability'],
  ['Price', 'a number; $ and thousands separators are fine', ''],
  ['Bedrooms', 'e.g. 2 or Studio', 'Beds'],
  ['Bathrooms', 'a number', 'Baths'],
  ['Area', 'a number, in the project’s area unit', 'Sq Ft, Square Feet'],
  ['Type', 'e.g. A2 or Penthouse', ''],
  ['Parking', 'spaces, a number', ''],
  ['Orientation', 'e.g. South-west', ''],
  ['Description', 'free text', ''],
];

const isXlsx = (f: File) => /\.xlsx$/i.test(f.name) || f.type === XLSX;
type Source = { text: string } | { file: File };

function ColumnNames() {
  return (
    <details class="columns">
      <summary>Column names the import understands (any case)</summary>
      <table class="sheet-columns">
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Holds</th>
            <th scope="col">Also accepted</th>
          </tr>
        </thead>
        <tbody>
          {COLUMNS.map(([name, what, also]) => (
            <tr key={name}>
              <td>
                <strong>{name}</strong>
              </td>
              <td>{what}</td>
              <td>{also || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

function Downloads({ project, onError, onDone }: { project: Project; onError: (e: unknown) => void; onDone: (m: string) => void }) {
  const base = project.namespace || project.name;
  const get = async (file: () => Promise<Blob>, name: string) => {
    onError(undefined);
    try {
      download(name, await file());
      onDone(`Downloaded ${name}.`);
    } catch (err) {
      onError(err);
    }
  };
  const template = (format: 'csv' | 'xlsx') => fetchFile(`/projects/${project._id}/inventory/template`, { query: format === 'csv' ? {} : { format } });
  return (
    <div class="row wrap">
      <button type="button" class="secondary" onClick={() => get(() => template('csv'), `${base}-units-template.csv`)}>
        Template (CSV)
      </button>
      <button type="button" class="secondary" onClick={() => get(() => template('xlsx'), `${base}-units-template.xlsx`)}>
        Template (Excel)
      </button>
      <button
        type="button"
        class="secondary"
        onClick={() => get(() => fetchFile('/units', { query: { project: project._id, format: 'csv' } }), `${base}-units.csv`)}
      >
        Export units as CSV
      </button>
    </div>
  );
}

/** CSV, TSV or Excel in (dry run first, the differences shown, then applied against the same state); templates out. */
export function Import({ project, manager, onApplied }: { project: Project; manager: boolean; onApplied: () => void }) {
  const [source, setSource] = useState<Source>({ text: '' });
  const [preview, setPreview] = useState<Preview>();
  const [result, setResult] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const fileId = useId();
  const body = (): [BodyInit, FileType] => ('file' in source ? [source.file, isXlsx(source.file) ? XLSX : 'text/csv'] : [source.text, 'text/csv']);
  const run = async (dryRun: boolean) => {
    setError(undefined);
    setResult('');
    setBusy(true);
    try {
      const p = await runImport(project._id, ...body(), { dryRun, ifMatch: dryRun ? null : preview?.etag });
      if (dryRun) {
        setPreview(p);
        return;
      }
      setResult(appliedText(p.answer.summary));
      setPreview(undefined);
      setSource({ text: '' });
      onApplied();
    } catch (err) {
      setError(err);
      if (!dryRun) setPreview(undefined);
    } finally {
      setBusy(false);
    }
  };
  const onFile = async (e: Event) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    setPreview(undefined);
    if (f) setSource(isXlsx(f) ? { file: f } : { text: await f.text() });
  };
  const ready = 'file' in source || source.text.trim() !== '';
  return (
    <section class="card import" aria-labelledby="import-h">
      <h2 id="import-h">Spreadsheet import and export</h2>
      <p class="muted small">Download the template, fill it in Excel or any spreadsheet, and import it back: the first row names the columns.</p>
      <Downloads project={project} onError={setError} onDone={setResult} />
      <ColumnNames />
      {!manager ? (
        <p class="muted">Importing is for the project's owner and administrators.</p>
      ) : (
        <>
          <div class="field">
            <label for={fileId}>Excel or CSV file to import</label>
            <input id={fileId} type="file" accept=".xlsx,.csv,.tsv,.txt,text/csv" onChange={onFile} />
          </div>
          <TextArea
            label="…or paste the rows (first line: column names)"
            rows={5}
            value={'text' in source ? source.text : ''}
            onValue={(v) => {
              setSource({ text: v });
              setPreview(undefined);
            }}
          />
          <div class="row wrap">
            <button type="button" disabled={!ready || busy} onClick={() => run(true)}>
              Preview changes
            </button>
            {preview && (
              <button type="button" disabled={busy || !canApply(preview)} onClick={() => run(false)}>
                Apply {changeCount(preview.answer)} change{changeCount(preview.answer) === 1 ? '' : 's'}
              </button>
            )}
          </div>
        </>
      )}
      <ErrorNotice error={error} />
      <Notice kind="ok">{result}</Notice>
      {preview && <ImportDiff answer={preview.answer} />}
    </section>
  );
}
