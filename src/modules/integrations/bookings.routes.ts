import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { perMinute } from '../../http/rate-limits.ts';
import { keepRawJson } from '../../http/raw-body.ts';
import { problems } from '../../http/schemas.ts';
import { BookingAck, BookingParams, CalDeliveryBody, CalSignatureHeaders } from './integrations.schemas.ts';
import { BookingsService } from './bookings.service.ts';

/** Cal.com's deliveries are a few kilobytes; a body past this is not one. */
const BOOKING_BODY_LIMIT = 256 * 1024;

/** Cal.com's webhook: a booking made on the project's booking page becomes a lead. No token: the signature is the credential. */
export const bookingRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new BookingsService(ctx);
  // The signature is over the exact bytes Cal.com sent: they are kept beside the parsed body (this plugin's routes only).
  const rawBody = keepRawJson(app, BOOKING_BODY_LIMIT);

  app.post(
    '/public/projects/:namespace/bookings',
    {
      schema: {
        operationId: 'submitBooking',
        tags: ['integrations'],
        summary: "Cal.com's webhook: a visit booked on the project's booking page becomes a lead with source `booking`",
        description:
          "Set this address as a webhook of the Cal.com account (or event type) whose username is the project's `calUsername`, with the project's `calKey` as its secret, for Booking Created, Booking Rescheduled and Booking Cancelled. " +
          '`X-Cal-Signature-256` must be the hex HMAC-SHA256 of the raw body with `calKey` (401 otherwise; a project without `calKey` → 403). ' +
          "BOOKING_CREATED makes a lead (the first attendee's name, e-mail and phone, the notes as its message, the unit the metadata's `unit` names, `booking` with the visit's time) that goes where every lead goes: the CRMs, the sales team's mail, `lead.created`. " +
          'BOOKING_RESCHEDULED moves the lead of `rescheduleUid` to the new time; BOOKING_CANCELLED marks its `booking` cancelled (`lead.updated`, CRMs updated). ' +
          'Each booking uid is handled once: a delivery sent again answers `duplicate` and changes nothing. Other triggers are acknowledged (`ignored`). Every verified delivery is the integration’s last success. ' +
          'Rate-limited per client address like the other public writes; bodies up to 256 KiB.',
        security: [],
        params: BookingParams,
        headers: CalSignatureHeaders,
        body: CalDeliveryBody,
        response: { 200: BookingAck, ...problems(400, 401, 403, 404, 413, 415, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.publicLeadsPerMinute) },
    },
    async (request) => {
      const answer = await service.receive(request.params.namespace, rawBody(request), request.headers['x-cal-signature-256'], request.body);
      return { received: true as const, ...answer };
    },
  );
};
