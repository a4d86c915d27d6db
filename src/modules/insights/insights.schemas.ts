import { Type, type Static } from '@sinclair/typebox';
import { ObjectId } from '../../http/schemas.ts';

/** What the buyer's page reports. */
export const EVENT_TYPES = ['page_view', 'unit_view', 'plan_view', 'list_view', 'building_view', 'filter', 'share', 'gallery', 'brochure'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Largest body POST /public/events takes (→ 413): a beacon is a few hundred bytes. */
export const EVENT_BODY_LIMIT = 4096;

const Short = (maxLength: number, description: string) => Type.String({ maxLength, description });

/** POST /public/events: one thing a visitor did on a presentation page. */
export const EventBody = Type.Object(
  {
    namespace: Type.String({ minLength: 1, maxLength: 63, description: "The presentation's namespace" }),
    type: Type.Union(
      EVENT_TYPES.map((t) => Type.Literal(t)),
      { description: 'What happened' },
    ),
    unit: Type.Optional({ ...ObjectId, description: 'The unit viewed, shared or filtered to (a unit of the project)' }),
    path: Type.Optional(Short(500, "The page's path (its query string is dropped)")),
    referrer: Type.Optional(Short(2000, 'The referring page (only its host is kept)')),
    utm: Type.Optional(
      Type.Object(
        {
          source: Type.Optional(Short(200, 'utm_source')),
          medium: Type.Optional(Short(200, 'utm_medium')),
          campaign: Type.Optional(Short(200, 'utm_campaign')),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type EventInput = Static<typeof EventBody>;

const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD (UTC)' });
const Count = Type.Integer({ minimum: 0 });

export const InsightsQuery = Type.Object(
  {
    from: Type.Optional({ ...Day, description: 'First day, UTC (default: 29 days before `to`)' }),
    to: Type.Optional({ ...Day, description: 'Last day, UTC, included (default: today)' }),
    interval: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('week')], { description: 'Series per day (default) or per ISO week (Monday)' })),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: the `units` table as CSV (as `Accept: text/csv`)' })),
  },
  { additionalProperties: false },
);

const UnitInsight = Type.Object(
  { _id: ObjectId, name: Type.String(), views: Count, enquiries: Count, holds: Count },
  { additionalProperties: false, description: 'One unit: unit views, enquiries naming it and holds on it in the range' },
);

export const InsightsSchema = Type.Object(
  {
    from: Day,
    to: Day,
    interval: Type.Union([Type.Literal('day'), Type.Literal('week')]),
    totals: Type.Object(
      {
        visitors: { ...Count, description: 'Visitors per day, summed over the range (a visitor is recognised within one UTC day only)' },
        pageViews: Count,
        unitViews: Count,
        enquiries: { ...Count, description: 'Leads other than holds and waitlist joins' },
        holds: Count,
        waitlist: Count,
      },
      { additionalProperties: false },
    ),
    series: Type.Array(
      Type.Object(
        {
          date: { ...Day, description: 'The day, or the Monday of the week' },
          visitors: Count,
          pageViews: Count,
          unitViews: Count,
          enquiries: Count,
          holds: Count,
        },
        { additionalProperties: false },
      ),
      { description: 'Every day (or week) of the range, in order, zeros included' },
    ),
    funnel: Type.Object(
      {
        visitors: Count,
        unitViewers: { ...Count, description: 'Visitors who viewed a unit (per day, summed)' },
        enquirers: { ...Count, description: 'Distinct e-mail addresses that enquired' },
        holders: { ...Count, description: 'Distinct e-mail addresses that held a unit' },
      },
      { additionalProperties: false },
    ),
    units: Type.Array(UnitInsight, { description: 'Every unit of the project, most viewed first' }),
    sources: Type.Array(Type.Object({ source: Type.String(), visitors: Count }, { additionalProperties: false }), {
      description: 'Visitors by utm source, else the referring host, else "direct"; most first',
    }),
  },
  { $id: 'Insights', additionalProperties: false },
);
export type Insights = Static<typeof InsightsSchema>;
export type UnitInsightRow = Static<typeof UnitInsight>;

/** The columns of the units CSV, in order. */
export const UNIT_CSV_COLUMNS = ['_id', 'name', 'views', 'enquiries', 'holds'];

export const INSIGHT_SCHEMAS = [InsightsSchema];
