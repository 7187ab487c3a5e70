import { z } from '@hono/zod-openapi';
import { Meta, PageQuery } from '../../http/schemas.ts';
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

/**
 * 16–256 visible ASCII characters. ASCII only, so the key is the same whether a receiver takes the secret's
 * UTF-8 bytes or, like `new Webhook(secret, {format: "raw"})` of the standardwebhooks package, its char codes.
 * Messages never echo the value.
 */
export const WebhookSecret = z
  .string()
  .refine((v) => /^[\x21-\x7e]{16,256}$/.test(v), {
    message: 'must be 16–256 visible ASCII characters (no spaces)',
  })
  .openapi({
    type: 'string',
    minLength: 16,
    maxLength: 256,
    pattern: '^[\\x21-\\x7e]{16,256}$',
    writeOnly: true,
    description: 'Signing secret (write-only: never returned). Keys X-Svc-Signature and webhook-signature.',
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
      '`failed`: every attempt failed (or the receiver answered 410); `cancelled`: the webhook was deactivated.',
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
