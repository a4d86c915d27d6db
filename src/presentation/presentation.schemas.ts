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

/** A filter's bound as the page's form sends it: a number, or empty (no bound). */
const Amount = (description: string) =>
  Type.Optional(Type.String({ pattern: '^([0-9]{1,12}(\\.[0-9]{1,4})?)?$', maxLength: 17, description: `${description}; empty: no bound` }));
const groupQuery = {
  view: Type.Optional(
    Type.Union([Type.Literal('list'), Type.Literal('grid'), Type.Literal('map')], {
      description: "The view shown (default: the group's `initialView`; a view the page does not offer shows the list)",
    }),
  ),
  minPrice: Amount("Homes from this price (with the group's `showPriceFilter`)"),
  maxPrice: Amount("Homes up to this price (with the group's `showPriceFilter`)"),
  minArea: Amount("Homes from this area (with the group's `showAreaFilter`)"),
  maxArea: Amount("Homes up to this area (with the group's `showAreaFilter`)"),
};

/** `/g/{namespace}`: the view and the filters of the group page (a form and links, no script). */
export const GroupPageQuery = Type.Object(groupQuery);

/** `/`: a project's page (its preview token) or a group's (its view and filters), by the request's host. */
export const HostPageQuery = Type.Object({ ...PageQuery.properties, ...groupQuery });

/** `/p/assets/{file}` and `/admin/assets/{file}`: a built asset of the page or the console. */
export const AssetParams = Type.Object({ file: Type.String({ maxLength: 100, description: 'The built file' }) });

/** `/p/{namespace}/units/{unitId}/{frame}`: the code a unit's sandboxed frame runs (its embed, its button's snippet). */
export const UnitFrameParams = Type.Object({
  namespace: Namespace,
  unitId: Type.String({ maxLength: 64, description: 'The unit' }),
  frame: Type.Union([Type.Literal('embed'), Type.Literal('button')], {
    description: "`embed`: the unit's `embedCode`; `button`: its `customButtonSnippet` (the custom button's `snippet` action)",
  }),
});
