import { Type } from '@sinclair/typebox';
import { ObjectId } from '../http/schemas.ts';

/** The presentation bundle: GET /public/projects/{namespace} and /public/hosts/{hostName}. */
export const BundleSchema = Type.Object(
  {
    project: Type.Object(
      { _id: ObjectId, name: Type.String() },
      { additionalProperties: true, description: 'Public Project fields (see docs/public-api.md for what is left out)' },
    ),
    floors: Type.Array(
      Type.Object({ _id: ObjectId, name: Type.String(), position: Type.Number(), units: Type.Array(Type.Ref('Unit')) }, { additionalProperties: true }),
      { description: 'Floors in position order, each with its units in position order' },
    ),
    unassignedUnits: Type.Array(Type.Ref('Unit'), { description: 'Units not placed on a floor' }),
  },
  { $id: 'Bundle', additionalProperties: false },
);

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const PUBLIC_SCHEMAS = [BundleSchema];
