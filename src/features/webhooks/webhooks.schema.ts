import { z } from '@hono/zod-openapi';
import { codePoints, hasControlChars, Meta, PageQuery } from '../../http/schemas.ts';
import { EVENT_TYPES } from '../events/events.ts';

const WEBHOOK_ID_EXAMPLE = 'wh_5Tq8LmZ2xK7bN4cV9pR1sW3y';
const DELIVERY_ID_EXAMPLE = 'dlv_2Hk9sQ4mZx7Lb1Nc8Vt3Rw6P';
const EVENT_ID_EXAMPLE = 'evt_7Yb3Kq9ZmL2xT5cN8vR4pW1s';

export const MAX_URL_LENGTH = 2048;

/** The URL; what it may point to is decided by the server's settings, in the service (400 `url`). */
export const WebhookUrl = z
  .string()
  .min(1, 'must be an https:// URL')
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .openapi({
    format: 'uri',
    description:
      'HTTPS endpoint that receives events. Private, loopback, link-local and metadata addresses are refused ' +
      '(at creation for IP literals, at delivery for host names resolving to them).',
    example: 'https://example.com/hooks/minutes',
  });

export const EventType = z.enum(EVENT_TYPES).openapi('EventType');

/** A non-empty list of event types; duplicates are removed, first occurrence kept. */
export const EventTypes = z
  .array(EventType)
  .min(1, 'must name at least one event type')
  .max(EVENT_TYPES.length * 4, 'lists too many event types')
  .transform((types) => [...new Set(types)])
  .openapi({
    type: 'array',
    items: { type: 'string', enum: [...EVENT_TYPES] },
    minItems: 1,
    description: 'Event types to receive; duplicates are removed.',
    example: ['note.created', 'note.processed'],
  } as never);

export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;

/** A lone UTF-16 surrogate: not a character, and it has no UTF-8 encoding (the HMAC key would be ambiguous). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * 16–256 code points of any characters but control characters (C0, DEL), like titles and tags; spaces and
 * non-ASCII are allowed and kept exactly as given (no trimming). Both signatures are keyed with the secret's
 * UTF-8 bytes. Messages never echo the value.
 */
export const WebhookSecret = z
  .string()
  .superRefine((v, ctx) => {
    const length = codePoints(v);
    if (length < MIN_SECRET_LENGTH || length > MAX_SECRET_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        message: `must be ${MIN_SECRET_LENGTH}–${MAX_SECRET_LENGTH} characters (it has ${length})`,
      });
    } else if (hasControlChars(v)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must not contain control characters (such as newlines or tabs)',
      });
    } else if (LONE_SURROGATE.test(v)) {
      ctx.addIssue({ code: 'custom', message: 'must be valid Unicode text (it contains a lone surrogate)' });
    }
  })
  .openapi({
    type: 'string',
    minLength: MIN_SECRET_LENGTH,
    maxLength: MAX_SECRET_LENGTH,
    pattern: '^[^\\u0000-\\u001f\\u007f]*$',
    writeOnly: true,
    description:
      'Signing secret (write-only: never returned): 16–256 characters (Unicode code points), no control ' +
      "characters. X-Svc-Signature and webhook-signature are keyed with the secret's UTF-8 bytes.",
    example: 'whsec_9f2Kq7ZmL1xT5cN8vR4pW3sY',
  } as never);

export const CreateWebhookBody = z
  .strictObject({ url: WebhookUrl, events: EventTypes, secret: WebhookSecret.optional() })
  .openapi('CreateWebhook');

export const UpdateWebhookBody = z
  .strictObject({
    url: WebhookUrl.optional(),
    events: EventTypes.optional(),
    active: z.boolean().optional().openapi({
      description: 'false stops deliveries and cancels those waiting; true resumes with events that follow.',
    }),
    secret: WebhookSecret.nullable()
      .optional()
      .openapi({ description: 'A new signing secret, or null to stop signing.' }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give at least one of url, events, active, secret',
  })
  .openapi('UpdateWebhook');

export const Webhook = z
  .object({
    id: z.string().openapi({ example: WEBHOOK_ID_EXAMPLE }),
    url: z.string(),
    events: z.array(EventType),
    active: z.boolean(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Webhook');

export const WebhookListItem = z
  .object({
    id: z.string().openapi({ example: WEBHOOK_ID_EXAMPLE }),
    url: z.string(),
    events: z.array(EventType),
    active: z.boolean(),
  })
  .openapi('WebhookListItem');

export const WebhookList = z.object({ data: z.array(WebhookListItem) }).openapi('WebhookList');

export const DeliveryStatus = z
  .enum(['pending', 'succeeded', 'failed', 'cancelled'])
  .openapi('DeliveryStatus', {
    description:
      '`pending`: waiting for its first attempt, a retry, or in flight; `succeeded`: a 2xx was received; ' +
      '`failed`: every attempt failed; `cancelled`: the webhook was deactivated.',
  });

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int().openapi({ description: '1 for the first try, 2–4 for retries.' }),
    started_at: z.string().openapi({ format: 'date-time' }),
    completed_at: z.string().optional().openapi({ format: 'date-time' }),
    duration_ms: z.number().int().optional(),
    status_code: z.number().int().optional().openapi({ description: 'Absent when no response arrived.' }),
    error: z.string().optional().openapi({ description: 'Why the attempt failed; absent on success.' }),
    response_body: z
      .string()
      .optional()
      .openapi({ description: 'The start of the response body (at most 1 KiB), ending in `…` when cut.' }),
  })
  .openapi('DeliveryAttempt');

export const Delivery = z
  .object({
    id: z.string().openapi({ example: DELIVERY_ID_EXAMPLE }),
    webhook_id: z.string().openapi({ example: WEBHOOK_ID_EXAMPLE }),
    event_id: z
      .string()
      .openapi({ example: EVENT_ID_EXAMPLE, description: 'Sent as X-Svc-Delivery and webhook-id.' }),
    event_type: EventType,
    status: DeliveryStatus,
    attempt_count: z.number().int(),
    next_attempt_at: z.string().optional().openapi({ format: 'date-time', description: 'While pending.' }),
    redelivery_of: z.string().optional().openapi({ description: 'The delivery this one re-sends.' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    completed_at: z.string().optional().openapi({ format: 'date-time' }),
    attempts: z.array(DeliveryAttempt).openapi({ description: 'Every attempt, oldest first.' }),
  })
  .openapi('Delivery');

export const DeliveryList = z.object({ data: z.array(Delivery), meta: Meta }).openapi('DeliveryList');

export const ListDeliveriesQuery = z.object({
  ...PageQuery,
  status: DeliveryStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
  event_id: z
    .string()
    .max(100)
    .optional()
    .openapi({ param: { name: 'event_id', in: 'query' }, description: 'Only deliveries of this event.' }),
});

export const WebhookIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: WEBHOOK_ID_EXAMPLE }),
});

export const DeliveryParams = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: WEBHOOK_ID_EXAMPLE }),
  delivery_id: z
    .string()
    .openapi({ param: { name: 'delivery_id', in: 'path' }, example: DELIVERY_ID_EXAMPLE }),
});

/** `{deleted: true}`: the same component as the other deletes. */
export { DeletedResponse as DeletedWebhook } from '../notes/notes.schema.ts';

export type CreateWebhookInput = z.infer<typeof CreateWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookBody>;
export type ListDeliveriesInput = z.infer<typeof ListDeliveriesQuery>;
