import { useState } from 'preact/hooks';
import { sized, uploadWithProgress } from './media.ts';
import { ErrorNotice, useId } from './ui.tsx';

export type MediaKind = 'image' | 'document';
const ACCEPT: Record<MediaKind, string> = {
  image: 'image/png,image/jpeg,image/webp,image/svg+xml',
  document: 'application/pdf,image/png,image/jpeg,image/webp',
};
const pct = (f: number) => `${Math.round(f * 100)} %`;

/**
 * A file input that also takes files dropped on it: each file goes to POST /media with its progress shown, and the
 * addresses come back in the order the files were given.
 */
export function DropZone({
  label,
  kind,
  multiple = false,
  onUploaded,
}: {
  label: string;
  kind: MediaKind;
  multiple?: boolean;
  onUploaded: (urls: string[]) => void;
}) {
  const id = useId('drop');
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<{ name: string; fraction: number }>();
  const [error, setError] = useState<unknown>();
  const take = async (files: File[]) => {
    if (!files.length) return;
    setError(undefined);
    const urls: string[] = [];
    try {
      for (const file of multiple ? files : files.slice(0, 1)) {
        setProgress({ name: file.name, fraction: 0 });
        urls.push((await uploadWithProgress(file, (fraction) => setProgress({ name: file.name, fraction }))).url);
      }
    } catch (err) {
      setError(err);
    } finally {
      setProgress(undefined);
      if (urls.length) onUploaded(urls);
    }
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void take([...(e.dataTransfer?.files ?? [])]);
  };
  return (
    <div
      class={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      data-dropzone={label}
    >
      <label for={id}>{label}</label>
      <small class="hint">
        Drop {multiple ? 'files' : 'a file'} here or choose {kind === 'document' ? '(PDF or picture)' : '(PNG, JPEG, WebP, SVG)'}
      </small>
      <input id={id} type="file" accept={ACCEPT[kind]} multiple={multiple} onChange={(e) => void take([...((e.target as HTMLInputElement).files ?? [])])} />
      {progress && (
        <div class="progress" role="status">
          <progress max={1} value={progress.fraction} aria-label={`Uploading ${progress.name}`} /> {progress.name}: {pct(progress.fraction)}
        </div>
      )}
      <ErrorNotice error={error} />
    </div>
  );
}

function Thumb({ url, kind, name }: { url: string; kind: MediaKind; name: string }) {
  if (kind === 'document' && /\.pdf$/i.test(url))
    return (
      <a href={url} target="_blank" rel="noopener noreferrer">
        {name} (PDF)
      </a>
    );
  return <img {...sized(url, '96px')} src={url} alt={name} width={96} height={72} loading="lazy" />;
}

/** One address (a hero, a logo, a layout, a brochure): the picture or a link, replace by upload or drop, remove (''). */
export function MediaField({ label, kind, value, onValue }: { label: string; kind: MediaKind; value: string | undefined; onValue: (url: string) => void }) {
  return (
    <div class="media-field">
      {value ? (
        <div class="thumbs">
          <Thumb url={value} kind={kind} name={label} />
          <button type="button" class="secondary small" onClick={() => onValue('')}>
            Remove {label.toLowerCase()}
          </button>
        </div>
      ) : null}
      <DropZone label={value ? `Replace ${label.toLowerCase()}` : label} kind={kind} onUploaded={(urls) => onValue(urls[0])} />
    </div>
  );
}

/** A list of addresses (photos, a gallery): add several at once by upload or drop, reorder, remove. */
export function MediaList({
  label,
  kind = 'image',
  value,
  onValue,
}: {
  label: string;
  kind?: MediaKind;
  value: string[] | undefined;
  onValue: (urls: string[]) => void;
}) {
  const list = value ?? [];
  const move = (i: number, by: number) => {
    const next = list.slice();
    const [x] = next.splice(i, 1);
    next.splice(i + by, 0, x);
    onValue(next);
  };
  return (
    <div class="media-field">
      {list.length > 0 && (
        <ul class="thumbs" aria-label={label}>
          {list.map((url, i) => (
            <li key={url}>
              <Thumb url={url} kind={kind} name={`${label} ${i + 1}`} />
              <div class="row">
                <button
                  type="button"
                  class="secondary small"
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                  aria-label={`Move ${label.toLowerCase()} ${i + 1} earlier`}
                >
                  ←
                </button>
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => onValue(list.filter((_, j) => j !== i))}
                  aria-label={`Remove ${label.toLowerCase()} ${i + 1}`}
                >
                  ✕
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <DropZone
        label={`Add to ${label.toLowerCase()}`}
        kind={kind}
        multiple
        onUploaded={(urls) => onValue([...list, ...urls.filter((u) => !list.includes(u))])}
      />
    </div>
  );
}
