import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { all, api, download, requestText } from '../api.ts';
import type { Project, User } from '../types.ts';
import type { components } from '../../api-schema.d.ts';
import { ErrorNotice, Loading, Notice, PageTitle, Select, useLoad } from '../ui.tsx';
import { sized } from '../media.ts';
import { PLAN_VIEWBOX } from './plan.tsx';
import { centre, parsePath } from '../drawing.tsx';
import { canManage } from '../access.ts';

type InsightsData = components['schemas']['Insights'];
type Metric = 'views' | 'enquiries' | 'holds';
const RANGES: [string, string][] = [
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
  ['365', 'Last 12 months'],
];
const METRICS: [Metric, string][] = [
  ['views', 'Views'],
  ['enquiries', 'Enquiries'],
  ['holds', 'Holds'],
];
const COLOURS = { visitors: '#1a56db', pageViews: '#0e7490', unitViews: '#b45309', enquiries: '#15803d', holds: '#b91c1c' };
const LABELS: Record<string, string> = {
  visitors: 'Visitors',
  pageViews: 'Page views',
  unitViews: 'Unit views',
  enquiries: 'Enquiries',
  holds: 'Holds',
  waitlist: 'Waitlist joins',
};

const dayMs = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const shortDate = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const number = (n: number) => n.toLocaleString('en-US');

/**
 * The Insights tab: visitors and views over time, enquiries and holds, the funnel, sources, top units and the plan
 * coloured by interest. Every chart is a picture of a table that is in the page too (screen readers read the table;
 * the canvas is hidden from them).
 */
export function Insights({ project, user }: { project: Project; user: User }) {
  const [days, setDays] = useState('30');
  const [interval, setInterval] = useState<'day' | 'week'>('day');
  const to = isoDay(Date.now());
  const from = isoDay(Date.now() - (Number(days) - 1) * dayMs);
  const data = useLoad(() => api.get(`/projects/${project._id}/insights`, { query: { from, to, interval } }), [project._id, from, to, interval]);
  const [sent, setSent] = useState('');
  const [error, setError] = useState<unknown>();

  const csv = async () => {
    const answer = await requestText(`/projects/${project._id}/insights`, { query: { from, to, format: 'csv' } });
    download(`insights-units-${from}-${to}.csv`, answer.data);
  };
  const sendReport = async () => {
    setError(undefined);
    try {
      await api.post(`/projects/${project._id}/reports/send`);
      setSent(`The report is on its way to ${String(project.reportSendTo)}.`);
    } catch (err) {
      setError(err);
    }
  };

  const d = data.data;
  return (
    <section class="insights">
      <PageTitle>Insights</PageTitle>
      <div class="insights-controls">
        <Select label="Period" value={days} options={RANGES} onValue={setDays} />
        <Select
          label="Group by"
          value={interval}
          options={[
            ['day', 'Day'],
            ['week', 'Week'],
          ]}
          onValue={setInterval}
        />
        <button type="button" class="secondary" onClick={() => void csv().catch(setError)}>
          Download units (CSV)
        </button>
        {canManage(project, user) && typeof project.reportSendTo === 'string' && project.reportSendTo.trim() && (
          <button type="button" class="secondary" id="send-report" onClick={() => void sendReport()}>
            Send the weekly report now
          </button>
        )}
      </div>
      <Notice kind="ok">{sent}</Notice>
      <ErrorNotice error={error ?? data.error} />
      {data.loading && !d && <Loading what="Counting" />}
      {d && (
        <>
          <ul class="kpis" aria-label="Totals">
            {Object.entries(d.totals).map(([k, v]) => (
              <li key={k}>
                <span class="kpi-value">{number(v)}</span>
                <span class="kpi-label">{LABELS[k]}</span>
              </li>
            ))}
          </ul>
          <p class="muted small">
            {shortDate(d.from)} to {shortDate(d.to)} (UTC). A visitor is recognised within one day only: no cookies, no stored addresses.
          </p>
          <div class="insights-grid">
            <TimeChart id="chart-traffic" title="Visitors and views" series={d.series} keys={['visitors', 'pageViews', 'unitViews']} interval={d.interval} />
            <TimeChart id="chart-sales" title="Enquiries and holds" series={d.series} keys={['enquiries', 'holds']} interval={d.interval} />
            <Funnel funnel={d.funnel} />
            <Bars id="sources" title="Where visitors come from" rows={d.sources.map((s) => [s.source, s.visitors])} unit="Visitors" empty="No visitors yet." />
          </div>
          <InterestMap project={project} units={d.units} />
          <TopUnits units={d.units} />
        </>
      )}
    </section>
  );
}

type Row = InsightsData['series'][number];

function TimeChart({ id, title, series, keys, interval }: { id: string; title: string; series: Row[]; keys: (keyof typeof COLOURS)[]; interval: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = series.map((r) => Date.parse(`${r.date}T00:00:00Z`) / 1000);
    const width = () => Math.max(260, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [
          { stroke: '#444', grid: { stroke: '#eee' }, values: (_u, vals) => vals.map((v) => shortDate(isoDay(v * 1000))) },
          { stroke: '#444', grid: { stroke: '#eee' }, size: 44, values: (_u, vals) => vals.map((v) => (Number.isInteger(v) ? number(v) : '')) },
        ],
        series: [{}, ...keys.map((k) => ({ label: LABELS[k], stroke: COLOURS[k], width: 2, points: { show: series.length <= 40 } }))],
      },
      [xs, ...keys.map((k) => series.map((r) => r[k]))],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, keys.join()]);
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div ref={box} id={id} class="chart-canvas" aria-hidden="true" />
      <div class="sr-only">
        <table>
          <caption>
            {title}, per {interval}
          </caption>
          <thead>
            <tr>
              <th scope="col">{interval === 'week' ? 'Week of' : 'Day'}</th>
              {keys.map((k) => (
                <th key={k} scope="col">
                  {LABELS[k]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {series.map((r) => (
              <tr key={r.date}>
                <th scope="row">{r.date}</th>
                {keys.map((k) => (
                  <td key={k}>{r[k]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** Bars drawn in a table: the table is what is read, the bars what is seen. */
function Bars({ id, title, rows, unit, empty }: { id: string; title: string; rows: [string, number][]; unit: string; empty: string }) {
  const max = Math.max(1, ...rows.map((r) => r[1]));
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      {rows.length ? (
        <table class="bars" id={id}>
          <thead class="sr-only">
            <tr>
              <th scope="col">{title}</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, value]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>
                  <span class="hbar" style={{ width: `${(value / max) * 100}%` }} aria-hidden="true" />
                  <span class="bar-value">{number(value)}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">{empty}</p>
      )}
    </figure>
  );
}

function Funnel({ funnel }: { funnel: InsightsData['funnel'] }) {
  const rows: [string, number][] = [
    ['Visitors', funnel.visitors],
    ['Viewed a unit', funnel.unitViewers],
    ['Enquired', funnel.enquirers],
    ['Held a unit', funnel.holders],
  ];
  return <Bars id="funnel" title="Funnel" rows={rows} unit="People" empty="" />;
}

function TopUnits({ units }: { units: InsightsData['units'] }) {
  const top = units.slice(0, 10);
  return (
    <section class="top-units" aria-labelledby="top-units-title">
      <h3 id="top-units-title">Most viewed units</h3>
      {top.length ? (
        <div class="table-wrap">
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">Unit</th>
                <th scope="col">Views</th>
                <th scope="col">Enquiries</th>
                <th scope="col">Holds</th>
              </tr>
            </thead>
            <tbody>
              {top.map((u) => (
                <tr key={u._id}>
                  <th scope="row">{u.name}</th>
                  <td>{number(u.views)}</td>
                  <td>{number(u.enquiries)}</td>
                  <td>{number(u.holds)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">No units yet.</p>
      )}
    </section>
  );
}

/** Light to dark blue by share of the floor's highest value; none at all is grey. */
function heat(value: number, max: number): string {
  if (value <= 0 || max <= 0) return '#e5e7eb';
  const t = value / max;
  const from = [191, 219, 254];
  const to = [30, 58, 138];
  const c = from.map((f, i) => Math.round(f + (to[i] - f) * t));
  return `rgb(${c.join(',')})`;
}

function InterestMap({ project, units }: { project: Project; units: InsightsData['units'] }) {
  const floors = useLoad(() => all('/floors', { query: { project: project._id } }), [project._id]);
  const shapes = useLoad(() => all('/units', { query: { project: project._id } }), [project._id]);
  const [floorId, setFloorId] = useState('');
  const [metric, setMetric] = useState<Metric>('views');
  const list = floors.data ?? [];
  const floor = list.find((f) => f._id === floorId) ?? list.at(0);
  const byId = useMemo(() => new Map(units.map((u) => [u._id, u])), [units]);
  if (floors.error || shapes.error) return <ErrorNotice error={floors.error ?? shapes.error} />;
  if (!floor) return null;
  const onFloor = (shapes.data ?? []).filter((u) => u.floor === floor._id);
  const values = onFloor.map((u) => ({ unit: u, value: byId.get(u._id)?.[metric] ?? 0 }));
  const max = Math.max(0, ...values.map((v) => v.value));
  const label = METRICS.find(([m]) => m === metric)?.[1] ?? metric;
  return (
    <section class="interest" aria-labelledby="interest-title">
      <h3 id="interest-title">Interest on the plan</h3>
      <div class="insights-controls">
        <Select label="Floor" value={floor._id} options={list.map((f) => [f._id, f.name])} onValue={setFloorId} />
        <Select label="Colour by" value={metric} options={METRICS} onValue={setMetric} />
      </div>
      <figure class="chart" aria-labelledby="interest-caption">
        <figcaption id="interest-caption">
          {label} per unit on {floor.name}
        </figcaption>
        <div class="plan-frame interest-frame" aria-hidden="true">
          {floor.floorplanUrl && <img {...sized(floor.floorplanUrl, '(max-width: 720px) 100vw, 66vw')} src={floor.floorplanUrl} alt="" />}
          <svg viewBox={PLAN_VIEWBOX} id="interest-map">
            {values.map(({ unit, value }) => {
              if (!unit.path) return null;
              const pts = parsePath(unit.path);
              const c = pts?.length ? centre(pts) : undefined;
              return (
                <g key={unit._id} data-unit={unit._id} data-value={value}>
                  <path d={unit.path} fill={heat(value, max)} fill-opacity={0.85} stroke="#fff" stroke-width={2}>
                    <title>
                      {unit.name}: {value} {label.toLowerCase()}
                    </title>
                  </path>
                  {c && (
                    <text x={c[0]} y={c[1]} text-anchor="middle" dominant-baseline="middle" class="shape-label interest-label">
                      {unit.name} · {value}
                    </text>
                  )}
                </g>
              );
            })}
          </svg>
        </div>
        <p class="heat-legend" aria-hidden="true">
          <span>0</span>
          <span class="heat-scale" />
          <span>{max}</span>
        </p>
        <div class="sr-only">
          <table>
            <caption>
              {label} per unit on {floor.name}
            </caption>
            <thead>
              <tr>
                <th scope="col">Unit</th>
                <th scope="col">{label}</th>
              </tr>
            </thead>
            <tbody>
              {values.map(({ unit, value }) => (
                <tr key={unit._id}>
                  <th scope="row">{unit.name}</th>
                  <td>{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </figure>
    </section>
  );
}
