import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId } from '../../http/schemas.ts';
import { XLSX_TYPE } from './xlsx.ts';

const Any = Type.Unknown();
const RowError = Type.Object(
  {
    row: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: '1 = the first data row; null for a failure of the whole file' }),
    column: Type.Union([Type.String(), Type.Null()], { description: 'The column header as written in the file' }),
    message: Type.String(),
    path: Type.Optional(Type.String({ description: 'In a 400 answer: `/<row>/<column>`, as problem details name fields' })),
  },
  { additionalProperties: false },
);

export const ImportAnswerSchema = Type.Object(
  {
    dryRun: Type.Boolean(),
    summary: Type.Object({
      created: Type.Integer(),
      updated: Type.Integer(),
      unchanged: Type.Integer(),
      kept: Type.Integer({ description: 'Rows whose availability was not applied because the unit is held right now' }),
      errors: Type.Integer(),
      skipped: Type.Integer({
        description: 'Rows left out by ftpWhitelist / ftpBlacklist (feed pulls), or apartments naming no unit of the project (RENTCafé pulls)',
      }),
    }),
    changes: Type.Array(
      Type.Object({
        row: Type.Integer(),
        action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('unchanged')]),
        unit: Type.Union([ObjectId, Type.Null()], { description: 'The unit changed; null for one the import creates' }),
        name: Type.String(),
        floor: Type.Union([Type.String(), Type.Null()], { description: "The unit's floor by name (after the import)" }),
        fields: Type.Record(Type.String(), Type.Array(Any, { minItems: 2, maxItems: 2 }), { description: '`{ field: [before, after] }`; floors by name' }),
      }),
      { description: 'One entry per row, in file order: the first 1,000 rows (`truncated` says whether there were more)' },
    ),
    truncated: Type.Boolean({ description: 'true: the file had more than 1,000 rows and `changes` lists the first 1,000; `summary` counts every row' }),
    errors: Type.Array(RowError),
    unknownColumns: Type.Array(Type.String()),
    kept: Type.Array(Type.Object({ row: Type.Integer(), unit: ObjectId, name: Type.String() })),
    sync: Type.Optional(Type.String({ description: 'The sync record of an applied import' })),
  },
  { $id: 'InventoryImport', description: 'What an import changes (dry run) or changed' },
);

/** A 400 carries the problem details and, beside them, the same answer as a 200 (nothing was applied). */
export const ImportRejectedSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    dryRun: Type.Boolean(),
    summary: Type.Object({}, { additionalProperties: true }),
    changes: Type.Array(Type.Object({}, { additionalProperties: true })),
    truncated: Type.Boolean(),
    errors: Type.Array(RowError),
    unknownColumns: Type.Array(Type.String()),
    kept: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { description: 'Row errors: nothing applied. The import answer beside the problem details; `errors` also carry a `path`.' },
);

export const SyncSchema = Type.Object(
  {
    _id: ObjectId,
    source: Type.Union([Type.Literal('upload'), Type.Literal('ftp'), Type.Literal('rentcafe')], {
      description: 'upload: a file sent; ftp: the FTP/SFTP feed; rentcafe: availability and prices pulled from Yardi RENTCafé',
    }),
    status: Type.Union([Type.Literal('applied'), Type.Literal('failed')]),
    startedAt: DateTime,
    finishedAt: DateTime,
    summary: Type.Object({}, { additionalProperties: true }),
    errors: Type.Array(RowError),
    user: Type.Union([ObjectId, Type.Null()], { description: 'Who uploaded or asked for the pull; null for a scheduled pull' }),
  },
  { $id: 'InventorySync' },
);

export const ImportQuery = Type.Object(
  {
    dryRun: Type.Optional(Type.Boolean({ default: false, description: 'true: answer what would change, change nothing' })),
    skipErrors: Type.Optional(Type.Boolean({ default: false, description: 'true: apply the good rows of a file with row errors' })),
  },
  { additionalProperties: false },
);

export const ImportJsonBody = Type.Object(
  {
    rows: Type.Array(Type.Record(Type.String({ maxLength: 200 }), Type.Unknown()), {
      maxItems: 100_000,
      description: 'One object per row, `{ header: value }`, headers as in a CSV file',
    }),
  },
  { additionalProperties: false },
);

export const SyncListQuery = Type.Object(
  {
    options: Type.Optional(
      Type.Object(
        { skip: Type.Optional(Type.Integer({ minimum: 0 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const INVENTORY_SCHEMAS = [ImportAnswerSchema, SyncSchema];

/** An import as a CSV file. */
export const ImportCsvBody = Type.String({ description: 'The file: comma, semicolon or tab separated, UTF-8 with or without BOM, first line the headers' });
/** An import as an Excel workbook. */
export const ImportXlsxBody = Type.String({ description: 'An Excel workbook (.xlsx): its first sheet, the first non-empty row the headers' });

/** POST /projects/{id}/inventory/import: one schema per media type, so Fastify validates each body against its own and OpenAPI lists all three. */
export const ImportBody = Type.Unsafe<Static<typeof ImportJsonBody> | string>({
  content: { 'application/json': { schema: ImportJsonBody }, 'text/csv': { schema: ImportCsvBody }, [XLSX_TYPE]: { schema: ImportXlsxBody } },
});

/** An import's `If-Match`: apply only what its dry run showed. */
export const ImportHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'The ETag of a dry run: apply only if the inventory is still in that state' })),
});

/** A feed pull's `If-Match`, as for an import. */
export const PullHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'The ETag of a dry run: apply the pulled file only if the inventory is still in that state' })),
});

/** GET /projects/{id}/inventory/template: the file's format. */
export const TemplateQuery = Type.Object(
  { format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('xlsx')], { description: 'csv (default) or xlsx' })) },
  { additionalProperties: false },
);

/** A project's applied imports and failed feed pulls, newest first. */
export const SyncArray = Type.Array(Type.Ref('InventorySync'));

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type ImportAnswer = Static<typeof ImportAnswerSchema>;
export type ImportQuery = Static<typeof ImportQuery>;
export type ImportJsonBody = Static<typeof ImportJsonBody>;
export type SyncListQuery = Static<typeof SyncListQuery>;
