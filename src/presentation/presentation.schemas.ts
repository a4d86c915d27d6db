import { Type } from '@sinclair/typebox';
import { PREVIEW_PARAM } from '../modules/projects/drafts.ts';

/** What a page route (and the console's) answers: HTML for people. */
export const HtmlContent = { 'text/html': { schema: Type.String() } };

const Namespace = Type.String({ maxLength: 63, description: 'The namespace of the project or group: the slug of its page' });

/** `/p/{namespace}` and `/g/{namespace}`. */
export const PageParams = Type.Object({ namespace: Namespace });

/** `/p/{namespace}/units/{unitId}`: a unit's own page. */
export const UnitPageParams = Type.Object({ namespace: Namespace, unitId: Type.String({ maxLength: 64, description: 'The unit the page opens on' }) });

/** The query a page route reads; the page's other parameters (`unit`, `refresh`, `live`) are its script's own. */
export const PageQuery = Type.Object({ preview: Type.Optional(Type.Unsafe<string>(PREVIEW_PARAM)) });

/** `/p/assets/{file}` and `/admin/assets/{file}`: a built asset of the page or the console. */
export const AssetParams = Type.Object({ file: Type.String({ maxLength: 100, description: 'The built file' }) });
