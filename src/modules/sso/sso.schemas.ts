import { Type } from '@sinclair/typebox';

/** A redirect: no body, the next address in `Location`. */
export const Redirect = {
  description: 'Redirect to `Location`',
  type: 'null',
  headers: { Location: { type: 'string' } },
} as const;

/** What an OpenID provider sends back to the callback (it may add parameters of its own, which are passed on as sent). */
export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096, description: 'The authorization code', examples: ['SplxlOBeZQQYbYS6WxSbIA'] })),
    state: Type.Optional(Type.String({ maxLength: 512, description: 'The state this service sent', examples: ['af0ifjsldkj'] })),
    iss: Type.Optional(Type.String({ maxLength: 2048, description: 'The issuer (RFC 9207)' })),
    error: Type.Optional(Type.String({ maxLength: 200, description: "The provider's refusal, such as access_denied" })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);

/** The provider's address, for a client that follows it itself (`Accept: application/json`). */
export const SsoStart = Type.Object(
  { url: Type.String({ description: "The provider's authorization address to open", examples: ['https://id.example.com/auth?client_id=showsuite&…'] }) },
  { additionalProperties: false, examples: [{ url: 'https://id.example.com/auth?client_id=showsuite&response_type=code&scope=openid%20email%20profile' }] },
);
