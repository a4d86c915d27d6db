import { Type, type Static } from '@sinclair/typebox';
import { ObjectId } from '../../http/schemas.ts';

/** One person of a project's team as colleagues read it: who, by name and e-mail, and how they are on it. */
export const TeamMemberSchema = Type.Object(
  {
    _id: ObjectId,
    role: Type.Union([Type.Literal('owner'), Type.Literal('administrator'), Type.Literal('editor')], {
      description: 'owner, administrator or editor of the project',
    }),
    name: Type.Union([Type.String(), Type.Null()], {
      description: "The person's name as their profile gives it (fullName, else name and lastName), or null when it has none",
    }),
    email: Type.String({ description: "The account's e-mail address (its username)" }),
  },
  { $id: 'TeamMember', additionalProperties: false },
);

/** GET /projects/{id}/team: the owner first, then administrators, then editors, each in the project's own order. */
export const TeamSchema = Type.Array(Type.Ref('TeamMember'));

export type TeamMember = Static<typeof TeamMemberSchema>;
