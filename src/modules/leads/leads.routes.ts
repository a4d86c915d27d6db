import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { objectQuery } from '../shared/query.ts';
import { LIST_TEXT, pageOf, TotalHeader } from '../shared/list.ts';
import { LeadService } from './leads.service.ts';
import { checkTimeZone } from './lead-export.ts';
import { LeadArray, LeadPatchBody, LeadSchema, LeadsQuery, WaitlisteeArray } from './leads.schemas.ts';
import { csvOrJson, sendCsv, toCsv, wantsCsv } from '../inventory/csv.ts';
import { sendXlsx, toXlsx, wantsXlsx, XLSX_CONTENT } from '../inventory/xlsx.ts';

const LEAD_COLUMNS = Object.keys(LeadSchema.properties);
/** An export for people (`tz`) names its zone in a last column. */
const READABLE_COLUMNS = [...LEAD_COLUMNS, 'timeZone'];
const MAX_EXPORTED_LEADS = 100_000;

const DAY = 86_400_000;
/** `createdFrom` as an instant: a date is its start. */
const fromBound = (v: string | undefined) => (v === undefined ? undefined : new Date(v.length === 10 ? `${v}T00:00:00Z` : v));
/** `createdTo` as the first instant past it: a date is its end, a time is itself (inclusive). */
const beforeBound = (v: string | undefined) =>
  v === undefined ? undefined : v.length === 10 ? new Date(Date.parse(`${v}T00:00:00Z`) + DAY) : new Date(Date.parse(v) + 1);

export const leadRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const service = new LeadService(ctx);
  app.get(
    '/projects/:id/waitlistees',
    {
      schema: {
        operationId: 'listWaitlistees',
        tags: ['leads'],
        summary: "A project's waitlist sign-ups, oldest first (owner and administrators)",
        description:
          "The project record's `waitlistees`: each visitor who joined the project's waitlist (a lead with source `waitlist`), " +
          'as first name, last name, e-mail, phone, the unit asked about and when, with the lead id to work it by. Up to 1,000; ' +
          '`X-Total-Count` says how many there are (`GET /leads?filters[source]=waitlist` pages through them all). A PATCH of the project ignores the field.',
        params: IdParams,
        response: { 200: { ...WaitlisteeArray, headers: TotalHeader }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { records, total } = await service.waitlistees(principalOf(request), request.params.id);
      reply.header('X-Total-Count', String(total));
      return records;
    },
  );

  app.get(
    '/leads',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        operationId: 'listLeads',
        tags: ['leads'],
        summary: 'Leads, newest first (owner and administrators): one project, or every project whose leads the caller may read',
        description:
          'With `Accept: text/csv` or `format=csv` the answer is RFC 4180 CSV, with `format=xlsx` (or the XLSX type in `Accept`) an Excel workbook; ' +
          'without `options.limit` either holds every lead of the filtered view. ' +
          '`filters[q]` is a substring of the name, e-mail or phone in any case; `filters[status]`, `[unit]`, `[source]` and `[assignee]` match exactly; ' +
          "`filters[createdFrom]` and `[createdTo]` bound `createdAt` (inclusive; a date covers the whole day, UTC); `filters[email]` lists one person's leads. " +
          'An export with `tz` (an IANA zone) names projects, units and assignees and writes times in that zone. ' +
          'Each lead carries `contactCount` (leads of its e-mail on its project) and, when made with a hold, `holdState`. ' +
          'Sort `name` is by last name; `updatedAt` is the last change of status, notes or assignee. ' +
          LIST_TEXT,
        querystring: LeadsQuery,
        response: {
          200: {
            ...csvOrJson(LeadArray, 'leads'),
            content: { ...csvOrJson(LeadArray, 'leads').content, ...XLSX_CONTENT },
            headers: TotalHeader,
          },
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { project, filters = {}, options = {}, format, tz } = request.query;
      const xlsx = wantsXlsx(request, format);
      const csv = !xlsx && wantsCsv(request, format);
      const timeZone = tz === undefined ? undefined : checkTimeZone(tz);
      const { createdFrom, createdTo, ...exact } = filters;
      // A spreadsheet export is the whole filtered view unless a page is asked for.
      const page = pageOf(options, csv || xlsx ? MAX_EXPORTED_LEADS : 100);
      const { leads, total } = await service.list(principalOf(request), project, {
        ...exact,
        createdFrom: fromBound(createdFrom),
        createdBefore: beforeBound(createdTo),
        ...page,
      });
      reply.header('X-Total-Count', String(total));
      const name = `leads-${project ?? 'all'}`;
      if (xlsx || csv) await service.exported(principalOf(request), project, xlsx ? 'xlsx' : 'csv', leads.length);
      const [rows, columns] = timeZone && (xlsx || csv) ? [await service.readable(leads, timeZone), READABLE_COLUMNS] : [leads, LEAD_COLUMNS];
      if (xlsx) return sendXlsx(reply, `${name}.xlsx`, await toXlsx('Leads', columns, rows));
      if (csv) return sendCsv(reply, `${name}.csv`, toCsv(rows, columns));
      return leads;
    },
  );

  app.patch(
    '/leads/:id',
    {
      schema: {
        operationId: 'updateLead',
        tags: ['leads'],
        summary: "Work a lead: its status, notes, assignee, and a waitlist entry's rank (owner and administrators; editors → 403)",
        description:
          "Changes only the fields sent; the visitor's own fields cannot change. `assignee` must be the project's owner, one of its administrators or editors (else 400). " +
          "Appends `lead.updated` to the project's change log (and sends it to webhooks). `If-Match` with a stale ETag → 412.",
        params: IdParams,
        body: LeadPatchBody,
        response: { 200: { ...Type.Ref('Lead'), headers: { ETag: { type: 'string' } } }, ...problems(400, 401, 403, 404, 412, 415) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await service.patch(principalOf(request), request.params.id, request.body, request.headers['if-match']);
      reply.header('ETag', etag);
      return record;
    },
  );
};
