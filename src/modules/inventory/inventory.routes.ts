import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { objectQuery } from '../shared/query.ts';
import type { ParsedTable } from './csv.ts';
import { jsonRowCounter, readCsv } from './import.bounds.ts';
import { templateCsv, TEMPLATE_HEADERS } from './template.ts';
import { readXlsx, sendXlsx, toXlsx, wantsXlsx, XLSX_CONTENT, XLSX_TYPE } from './xlsx.ts';
import { jsonTable, sendCsv } from './csv.ts';
import {
  ImportAnswerSchema,
  ImportBody,
  ImportHeaders,
  ImportJsonBody,
  ImportQuery,
  ImportRejectedSchema,
  PullHeaders,
  SyncArray,
  SyncListQuery,
  SyncSchema,
  TemplateQuery,
} from './inventory.schemas.ts';
import { InventoryService, type ImportOutcome } from './inventory.service.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** What both import routes read from a request. */
interface ImportRequest extends FastifyRequest {
  params: { id: string };
  query: { dryRun?: boolean | undefined; skipErrors?: boolean | undefined };
  headers: FastifyRequest['headers'] & { 'if-match'?: string | undefined };
}

const CSV_TYPES = ['text/csv', 'application/csv', 'text/tab-separated-values', 'text/plain'];

const answered = (description: string) => ({
  description,
  headers: { ETag: { type: 'string', description: 'The state of the inventory this answer was computed on (send as If-Match to apply)' } },
  content: { 'application/json': { schema: Type.Ref('InventoryImport') } },
});
const rejected = {
  description: 'Row errors (nothing applied), or a bad file; with row errors the import answer stands beside the problem details',
  content: { 'application/problem+json': { schema: ImportRejectedSchema } },
};

const missingImportBody = () =>
  ERRORS.invalidBody('request body is required: a CSV file (text/csv) or {"rows": [...]} (application/json)', {
    errors: [{ path: '/', message: 'is required' }],
  });

export const inventoryRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx; inventory: InventoryService }> = async (app, { ctx, inventory: service }) => {
  useJsonStringify(app);
  const bodyLimit = ctx.config.inventory.maxFileBytes;
  const { maxRows } = ctx.config.inventory;
  /** A CSV upload as read while it streamed in; the body the validator sees is only a stand-in. */
  const tables = new WeakMap<FastifyRequest, ParsedTable>();
  app.addContentTypeParser(CSV_TYPES, async (request: FastifyRequest, payload: FastifyRequest['raw']) => {
    tables.set(request, await readCsv(payload, { maxRows, maxBytes: bodyLimit }));
    return '';
  });
  // A workbook is a zip: read whole (within the same byte limit); its first sheet is parsed by the handler once the
  // caller's access is checked and a place is taken, its inflated size capped.
  const workbooks = new WeakMap<FastifyRequest, Buffer>();
  app.addContentTypeParser(XLSX_TYPE, { parseAs: 'buffer', bodyLimit }, (request: FastifyRequest, body: Buffer, done) => {
    workbooks.set(request, body);
    done(null, '');
  });

  /** A place among the imports running on this node (429 when none is free), held until the answer is sent. */
  const takePlace = (reply: FastifyReply) => {
    reply.raw.on('close', service.gate.take());
  };

  function send(reply: FastifyReply, outcome: ImportOutcome) {
    reply.header('ETag', outcome.etag);
    if (outcome.status === 400) {
      const { answer } = outcome;
      throw ERRORS.invalidBody(
        `${answer.errors.length} row error${answer.errors.length === 1 ? '' : 's'}; nothing was applied (skipErrors=true applies the other rows)`,
        { headers: { ETag: outcome.etag }, extra: { ...answer, errors: answer.errors.map((e) => ({ ...e, path: `/${e.row}/${e.column ?? ''}` })) } },
      );
    }
    return outcome.answer;
  }

  /** Both import routes: the options of the query and If-Match. */
  const optionsOf = (request: ImportRequest) => ({
    dryRun: request.query.dryRun ?? false,
    skipErrors: request.query.skipErrors ?? false,
    ifMatch: request.headers['if-match'],
  });

  app.post(
    '/projects/:id/inventory/import',
    {
      bodyLimit,
      // While the body arrives (JSON) the row count as the bytes pass. The place is taken only once the body has
      // arrived, so an upload trickling in a byte at a time holds none.
      preParsing: async (request, _reply, payload) => {
        return /^application\/json/i.test(request.headers['content-type'] ?? '') ? payload.pipe(jsonRowCounter(maxRows)) : payload;
      },
      schema: {
        operationId: 'importInventory',
        tags: ['inventory'],
        summary: "Import the project's units from a CSV file, an Excel workbook or JSON rows (owner and administrators)",
        description:
          'The body is the file (`text/csv`: comma, semicolon or tab separated, UTF-8 with or without BOM; or an `.xlsx` workbook, its first sheet) or `application/json` ' +
          '`{ "rows": [ { header: value } ] }`. ' +
          "Headers are Unit field names, the sales team's words (Name, Floor, Status, Price, Bedrooms/Beds, Bathrooms/Baths, Area/Sq Ft/Square Feet, Type, Parking, Orientation, Description; any case) " +
          "or names the project's `ftpMapping` maps to them; " +
          'a row names its unit by `_id`, else by `name` (with `floor` when names repeat). ' +
          '`dryRun=true` answers what would change and changes nothing; its `ETag` sent back as `If-Match` applies exactly that ' +
          '(412 if any floor or unit changed since). ' +
          'Row errors apply nothing (400 with the same answer) unless `skipErrors=true`. A unit held right now keeps its ' +
          'availability (listed in `kept`). ' +
          `At most ${maxRows} rows (413 \`too_many_rows\`, counted while the file is read), ${Math.round(bodyLimit / 1048576)} MiB (413) and 48 cells a row allowed (413); ` +
          `at most ${ctx.config.inventory.importsAtOnce} imports run at once per node (429 with \`Retry-After\`). ` +
          '`changes` lists the first 1,000 rows (`truncated: true` when there are more; `summary` counts all). See docs/inventory.md.',
        params: IdParams,
        querystring: ImportQuery,
        headers: ImportHeaders,
        body: ImportBody,
        response: {
          200: answered('The import answer (dry run: what would change; else: what changed)'),
          400: rejected,
          ...problems(401, 403, 404, 412, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const tableOf = () => {
        const workbook = workbooks.get(request);
        if (workbook) return readXlsx(workbook, { maxRows, maxBytes: bodyLimit });
        const body = request.body as Static<typeof ImportJsonBody> | string | Record<string, never>;
        // Fastify validates a body by its content type: one sent with none (or none at all) arrives unvalidated as {}.
        if (typeof body !== 'string' && !('rows' in body)) throw missingImportBody();
        const table = typeof body === 'string' ? tables.get(request) : jsonTable(body.rows);
        // The CSV parser always leaves its table; a string body without one never passes it.
        if (!table) throw ERRORS.unsupportedMediaType('Send the file as text/csv or .xlsx, or the rows as application/json');
        return table;
      };
      return send(
        reply,
        await service.upload(
          principalOf(request),
          request.params.id,
          optionsOf(request),
          () => {
            takePlace(reply);
          },
          tableOf,
        ),
      );
    },
  );

  app.post(
    '/projects/:id/inventory/sync',
    {
      schema: {
        operationId: 'syncInventory',
        tags: ['inventory'],
        summary: "Pull the project's feed file over FTP, FTPS or SFTP now and import it (owner and administrators)",
        description:
          'Fetches `ftpPath`/`ftpFileName` from `ftpUrl` (`ftpPort`; credentials from the sealed `ftpUsername`/`ftpPassword`) and ' +
          'imports it as an upload would, ' +
          'reading only rows whose unit name matches `ftpWhitelist` (when set) and not `ftpBlacklist`. An unreachable server, a ' +
          'refused login or a missing file → ' +
          '502 `upstream_failed` naming which (`reason`), a failed sync record, and no change. `dryRun=true` changes nothing and records nothing.',
        params: IdParams,
        querystring: ImportQuery,
        headers: PullHeaders,
        response: { 200: answered('The import answer of the pulled file'), 400: rejected, ...problems(401, 403, 404, 412, 413, 429, 502) },
      },
    },
    async (request, reply) => {
      // The place is taken once access is granted, so a stranger gets 404 even when every place is busy.
      const outcome = await service.pullNow(principalOf(request), request.params.id, optionsOf(request), () => {
        takePlace(reply);
      });
      return send(reply, outcome);
    },
  );

  app.post(
    '/projects/:id/integrations/rentcafe/sync',
    {
      schema: {
        operationId: 'syncRentcafe',
        tags: ['integrations'],
        summary: 'Pull availability and prices from Yardi RENTCafé now and import them (owner and administrators)',
        description:
          "Calls RENTCafé's apartment availability with the project's `yiApiToken`, `yiCompanyCode` and `yiPropertyCode` and " +
          "imports each apartment into the unit of the same name (RENTCafé's `ApartmentName`, any case): its status read through " +
          '`yiStatusMapping` (and the defaults docs/integrations.md lists) and its rent as `price`. Apartments naming no unit are ' +
          'skipped; units RENTCafé does not list are left as they are. As the feed: `dryRun=true` changes nothing and records ' +
          'nothing, its `ETag` as `If-Match` applies exactly that, row errors apply nothing (400) unless `skipErrors=true`, and the ' +
          'sync is recorded (`source: "rentcafe"`) with `lastSync`. RENTCafé refusing, failing or rate-limiting → 502 ' +
          '`upstream_failed` in words (`reason`) and a failed sync; credentials not all set → 409. The integration’s state keeps the outcome.',
        params: IdParams,
        querystring: ImportQuery,
        headers: PullHeaders,
        response: {
          200: answered("The import answer of RENTCafé's availability"),
          400: rejected,
          ...problems(401, 403, 404, 409, 412, 413, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const outcome = await service.rentcafeNow(principalOf(request), request.params.id, optionsOf(request), () => {
        takePlace(reply);
      });
      return send(reply, outcome);
    },
  );

  app.get(
    '/projects/:id/inventory/template',
    {
      schema: {
        operationId: 'getInventoryTemplate',
        tags: ['inventory'],
        summary: "The project's units as an import file in the sales team's words: CSV, or .xlsx with format=xlsx",
        description:
          `Columns ${TEMPLATE_HEADERS.join(', ')}; one row per unit in floor order (a floor whose name an earlier floor has is named by its id). ` +
          'Imported back unchanged, it changes nothing; edited, it is the import file. With no units it is the blank form. ' +
          '`format=xlsx` (or the XLSX type in `Accept`) answers an Excel workbook, else CSV.',
        params: IdParams,
        querystring: TemplateQuery,
        response: {
          200: {
            description: 'The template',
            content: { 'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV (UTF-8, CRLF), header row first' } }, ...XLSX_CONTENT },
          },
          ...problems(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const records = await service.template(principalOf(request), request.params.id);
      const name = `units-${request.params.id}`;
      if (wantsXlsx(request, request.query.format)) return sendXlsx(reply, `${name}.xlsx`, await toXlsx('Units', TEMPLATE_HEADERS, records));
      return sendCsv(reply, `${name}.csv`, templateCsv(records));
    },
  );

  app.get(
    '/projects/:id/inventory/syncs',
    {
      preValidation: objectQuery(['options']),
      schema: {
        operationId: 'listInventorySyncs',
        tags: ['inventory'],
        summary: "The project's applied imports and failed feed pulls, newest first",
        description: '`options.skip` ≥ 0 (0), `options.limit` 1–500 (100); `X-Total-Count` holds the count before paging.',
        params: IdParams,
        querystring: SyncListQuery,
        response: { 200: { ...SyncArray, headers: { 'X-Total-Count': { type: 'integer' } } }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { options = {} } = request.query;
      const { records, total } = await service.syncs(principalOf(request), request.params.id, { skip: options.skip ?? 0, limit: options.limit ?? 100 });
      reply.header('X-Total-Count', String(total));
      return records;
    },
  );
};

export { ImportAnswerSchema, SyncSchema };
