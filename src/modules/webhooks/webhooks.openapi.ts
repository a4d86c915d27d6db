import { EVENT_TYPES } from '../events/events.schemas.ts';
import { eventSchemaName } from '../events/events.schemas.ts';

const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });

/**
 * The OpenAPI 3.1 `webhooks` section: what Showsuite POSTs to a subscribed URL, one entry per event type, with the
 * Standard Webhooks headers. The bodies are the event schemas of GET /projects/{id}/events.
 */
export function webhooksSection() {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook${eventSchemaName(type).replace(/Event$/, '')}`,
          tags: ['webhooks'],
          summary: `${type} delivered to a subscribed URL`,
          description:
            'Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` ' +
            '(docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried ' +
            'after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.',
          security: [],
          parameters: [
            header('webhook-id', 'The delivery id, the same on every attempt'),
            header('webhook-timestamp', 'Seconds since the epoch when this attempt was signed'),
            header('webhook-signature', 'v1,<base64 signature>'),
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(type)}` } } } },
          responses: {
            '200': { description: 'Any 2xx: delivered' },
            '400': { description: 'Any other answer, or none within 10 s: retried later' },
          },
        },
      },
    ]),
  );
}
