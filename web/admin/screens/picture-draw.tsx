/**
 * Shapes drawn over a picture in its own pixels (`0 0 <natural width> <natural height>`, as the buyer's page reads
 * them): the lots over the site plan, the floors over the building's picture. One item is drawn at a time, with one
 * shape or several (a floor's `path` and its `alternativePaths`); saving hands them back to the screen, which saves
 * them with If-Match.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { DrawCanvas, DrawingCard, DrawnShape, parsePath, toPath, useOutline, type Outline, type Pt } from '../drawing.tsx';
import { ErrorNotice, Notice } from '../ui.tsx';

/** Something drawn over the picture: a unit's lot, a floor. */
export interface PictureItem {
  id: string;
  name: string;
  fill: string;
  /** Its shapes as SVG path data, in the picture's pixels. */
  shapes: string[];
}

/** The picture's natural size, once it has loaded; `failed` when it cannot be. */
function useImageSize(url: string) {
  const [size, setSize] = useState<{ w: number; h: number } | 'failed'>();
  useEffect(() => {
    setSize(undefined);
    const img = new Image();
    img.onload = () => setSize(img.naturalWidth && img.naturalHeight ? { w: img.naturalWidth, h: img.naturalHeight } : 'failed');
    img.onerror = () => setSize('failed');
    img.src = url;
  }, [url]);
  return size;
}

interface Props {
  /** The picture drawn on. */
  image: string;
  /** What the drawing is ("Site plan", "Building"). */
  label: string;
  /** What an item is called in the words ("lot", "floor"). */
  noun: string;
  items: PictureItem[];
  /** Whether an item may have more shapes than one. */
  several: boolean;
  save: (item: PictureItem, shapes: string[]) => Promise<void>;
}

export function PictureDrawing({ image, label, noun, items, several, save }: Props) {
  const size = useImageSize(image);
  const [selected, setSelected] = useState<string>();
  const [shapes, setShapes] = useState<string[]>([]);
  const [index, setIndex] = useState(0);
  const [snap, setSnap] = useState(true);
  const [news, setNews] = useState('');
  const [error, setError] = useState<unknown>();
  const outline = useOutline(selected !== undefined);
  const item = items.find((i) => i.id === selected);
  if (size === undefined) return <p class="muted">Loading the picture…</p>;
  if (size === 'failed') return <Notice kind="warn">The picture cannot be loaded, so nothing can be drawn over it.</Notice>;

  /** The shapes with the one being drawn put in its place. */
  const current = (): string[] => shapes.map((d, i) => (i === index ? toPath(outline.points) : d));
  /** Draws shape `i` of `all` (after adding an empty one, or removing shape `remove`). */
  const edit = (all: string[], i: number, add = false, remove?: number) => {
    const list = add ? [...all, ''] : remove === undefined ? all : all.filter((_, k) => k !== remove);
    const pts = parsePath(list[i]);
    setShapes(list);
    setIndex(i);
    outline.start(pts ?? []);
    return pts;
  };
  const choose = (it: PictureItem) => {
    setSelected(it.id);
    setError(undefined);
    const pts = edit(it.shapes.length ? it.shapes : [''], 0);
    setNews(pts === undefined ? `${it.name}'s shape uses curves; drawing a new one replaces it.` : `Drawing ${it.name}: click on the picture to add corners.`);
  };
  const onSave = async () => {
    if (!item) return;
    const list = current().filter((d) => d);
    setError(undefined);
    try {
      await save(item, list);
      setNews(`${item.name}: ${list.length ? `${list.length === 1 ? 'shape' : `${list.length} shapes`} saved` : 'shape removed'}.`);
      setSelected(undefined);
      outline.start([]);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error(`${item.name} was changed by someone else meanwhile; reloaded — draw again.`) : err);
    }
  };
  const others = items.filter((i) => i.id !== selected);

  return (
    <div class="plan-layout picture-draw">
      <div>
        <div class="picture-frame" style={{ aspectRatio: `${size.w} / ${size.h}` }} data-drawing={item ? 'true' : 'false'}>
          <img src={image} alt="" />
          <PictureCanvas size={size} label={label} item={item} others={others} shapes={shapes} index={index} outline={outline} snap={snap} choose={choose} />
        </div>
      </div>
      <div class="plan-side">
        <Notice kind="info">{news}</Notice>
        <ErrorNotice error={error} />
        {item ? (
          <DrawingCard
            title={`Drawing ${item.name}${shapes.length > 1 ? `, shape ${index + 1} of ${shapes.length}` : ''}`}
            where="on the picture"
            outline={outline}
            snap={snap}
            setSnap={setSnap}
            save={onSave}
            saveLabel={several ? 'Save shapes' : 'Save shape'}
            clearable
            cancel={() => {
              setSelected(undefined);
              setNews('');
            }}
          >
            {several && <ShapeTabs name={item.name} count={shapes.length} index={index} edit={(i, add, remove) => edit(current(), i, add, remove)} />}
          </DrawingCard>
        ) : (
          <p class="muted">Choose a {noun} to draw its shape.</p>
        )}
        <ItemPicks label={`${label}: ${noun}s`} items={items} selected={selected} choose={choose} />
      </div>
    </div>
  );
}

/** A floor's shapes: go to one, add one, remove the one drawn. */
function ShapeTabs({ name, count, index, edit }: { name: string; count: number; index: number; edit: (i: number, add?: boolean, remove?: number) => void }) {
  return (
    <div class="row wrap" role="group" aria-label={`${name}'s shapes`}>
      {Array.from({ length: count }, (_, k) => (
        <button key={k} type="button" class="secondary small" aria-pressed={k === index} onClick={() => edit(k)}>
          Shape {k + 1}
        </button>
      ))}
      <button type="button" class="secondary small" onClick={() => edit(count, true)}>
        Add another shape
      </button>
      {count > 1 && (
        <button type="button" class="secondary small" onClick={() => edit(Math.max(0, index - 1), false, index)}>
          Remove shape {index + 1}
        </button>
      )}
    </div>
  );
}

/** The items to choose from, each saying whether it is drawn. */
function ItemPicks({
  label,
  items,
  selected,
  choose,
}: {
  label: string;
  items: PictureItem[];
  selected: string | undefined;
  choose: (i: PictureItem) => void;
}) {
  return (
    <ul class="unit-picks" aria-label={label}>
      {items.map((i) => (
        <li key={i.id}>
          <button type="button" class="secondary" aria-pressed={i.id === selected} onClick={() => choose(i)}>
            <span class="swatch" style={{ background: i.fill }} aria-hidden="true" />
            {i.name} <span class="muted small">{i.shapes.length ? 'drawn' : 'not drawn'}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

interface PictureCanvasProps {
  size: { w: number; h: number };
  label: string;
  /** The item being drawn, and its shapes (the one being drawn is `index`). */
  item: PictureItem | undefined;
  shapes: string[];
  index: number;
  others: PictureItem[];
  outline: Outline;
  snap: boolean;
  choose: (i: PictureItem) => void;
}

/** The drawing over the picture: the other items' shapes (a click chooses one), the item's other shapes, the one drawn. */
function PictureCanvas({ size, label, item, shapes, index, others, outline, snap, choose }: PictureCanvasProps) {
  const snapTo: Pt[] = [
    ...others.flatMap((i) => i.shapes.flatMap((d) => parsePath(d) ?? [])),
    ...shapes.flatMap((d, i) => (i === index ? [] : (parsePath(d) ?? []))),
  ];
  const font = Math.max(14, Math.round((14 * size.w) / 600));
  return (
    <DrawCanvas
      width={size.w}
      height={size.h}
      label={label}
      drawing={item ? `${item.name}'s shape` : undefined}
      outline={outline}
      snap={snap}
      snapTo={snapTo}
      fill={item?.fill ?? ''}
    >
      {others.flatMap((i) =>
        i.shapes.map((d, k) => (
          <DrawnShape key={`${i.id}-${k}`} d={d} name={i.name} fill={i.fill} faint={item !== undefined} fontSize={font} onChoose={() => choose(i)} />
        )),
      )}
      {item &&
        shapes.map((d, k) =>
          k === index || !d ? null : <DrawnShape key={`own-${k}`} d={d} name={`${item.name} (${k + 1})`} fill={item.fill} faint fontSize={font} />,
        )}
    </DrawCanvas>
  );
}
