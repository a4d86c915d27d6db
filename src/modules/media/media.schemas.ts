import { Type, type Static } from '@sinclair/typebox';
import { CONTENT_TYPES } from './sniff.ts';
import { MAX_WIDTH, MIN_WIDTH, VARIANT_TYPES, WIDTH_STEP } from './variants.ts';

/** A stored file, as POST /media answers it. */
export const StoredMediaSchema = Type.Object(
  {
    url: Type.String({ description: 'Where the file is served: `/media/<content hash>.<extension>`' }),
    contentType: Type.String({ description: 'What the content was recognised as' }),
    size: Type.Integer({ description: 'Bytes stored (an SVG after sanitising)' }),
  },
  { additionalProperties: false },
);

/** The multipart form of POST /media. */
export const MediaUploadForm = Type.Object({
  // Optional only for the validator, which sees no parsed body: the handler requires the part itself.
  file: Type.Optional(Type.String({ contentMediaType: 'application/octet-stream', description: 'The file (required)' })),
});

/** GET /media/{name}: the stored name. */
export const MediaFileParams = Type.Object({
  name: Type.String({ maxLength: 64, description: 'The stored name: content hash and extension', examples: ['9f86d081884c7d659a2feaa0c55ad015.png'] }),
});

/** GET /media/{name}?w=: the width of a resized picture. */
export const MediaFileQuery = Type.Object({
  w: Type.Optional(
    Type.Integer({
      minimum: MIN_WIDTH,
      maximum: MAX_WIDTH,
      description:
        `A PNG, JPEG or WebP resized to this width (${MIN_WIDTH}–${MAX_WIDTH}; rounded up to a multiple of ${WIDTH_STEP}, never wider than the picture), ` +
        'as AVIF when `Accept` names image/avif, else WebP when it names image/webp, else in its own format. An SVG is served as it is; a PDF → 400.',
    }),
  ),
});

/** What GET /media/{name} may answer: every type a stored file or a variant can have, each as bytes. */
export const MEDIA_FILE_CONTENT = Object.fromEntries(
  [...new Set([...Object.values(CONTENT_TYPES), ...Object.values(VARIANT_TYPES)])].map((t) => [t, { schema: Type.String({ contentMediaType: t }) }]),
);

export type StoredMedia = Static<typeof StoredMediaSchema>;
