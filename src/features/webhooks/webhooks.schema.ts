import { z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { codePoints, hasControlChars, Meta, PageQuery } from '../../lib/schemas/fields.ts';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../events/events.ts';

const WEBHOOK_ID_EXAMPLE = EXAMPLE.webhookId;
const DELIVERY_ID_EXAMPLE = EXAMPLE.deliveryId;
const EVENT_ID_EXAMPLE = EXAMPLE.eventId;

/** The document's example webhook (see EXAMPLE), created before the example note was recorded. */
const EXAMPLE_WEBHOOK = {
  id: WEBHOOK_ID_EXAMPLE,
  url: 'https://example.com/hooks/minutes',
  events: ['note.created' as const, 'note.processed' as const],
  active: true,
  created_at: '2026-11-18T09:30:00.000Z',
};
const EXAMPLE_WEBHOOK_LIST_ITEM = {
  id: EXAMPLE_WEBHOOK.id,
  url: EXAMPLE_WEBHOOK.url,
  events: EXAMPLE_WEBHOOK.events,
  active: EXAMPLE_WEBHOOK.active,
};

/** The `note.processed` event of the example note sent to it: a 503 first, then a 200 on the first retry. */
const EXAMPLE_FAILED_ATTEMPT = {
  attempt: 1,
  started_at: '2026-11-20T14:31:07.561Z',
  completed_at: '2026-11-20T14:31:07.803Z',
  duration_ms: 242,
  status_code: 503,
  error: 'The receiver answered 503, not a 2xx status.',
  response_body: 'Service Unavailable',
};
const EXAMPLE_ATTEMPT = {
  attempt: 2,
  started_at: '2026-11-20T14:31:38.104Z',
  completed_at: '2026-11-20T14:31:38.212Z',
  duration_ms: 108,
  status_code: 200,
  response_body: '{"received":true}',
};
const EXAMPLE_DELIVERY = {
  id: DELIVERY_ID_EXAMPLE,
  webhook_id: WEBHOOK_ID_EXAMPLE,
  event_id: EVENT_ID_EXAMPLE,
  event_type: 'note.processed' as const,
  status: 'succeeded' as const,
  attempt_count: 2,
  created_at: '2026-11-20T14:31:07.530Z',
  updated_at: '2026-11-20T14:31:38.212Z',
  completed_at: '2026-11-20T14:31:38.212Z',
  attempts: [EXAMPLE_FAILED_ATTEMPT, EXAMPLE_ATTEMPT],
};

/** The 202 of a redelivery: a new delivery of the same event, queued. */
export const EXAMPLE_REDELIVERY = {
  id: 'dlv_6Vt3Rw8Pk1Hs9Qm4Zx2Lb7Nc',
  webhook_id: WEBHOOK_ID_EXAMPLE,
  event_id: EVENT_ID_EXAMPLE,
  event_type: 'note.processed' as const,
  status: 'pending' as const,
  attempt_count: 0,
  next_attempt_at: '2026-11-25T10:02:11.480Z',
  redelivery_of: DELIVERY_ID_EXAMPLE,
  created_at: '2026-11-25T10:02:11.480Z',
  updated_at: '2026-11-25T10:02:11.480Z',
  attempts: [],
};

export const MAX_URL_LENGTH = 2048;

/** The URL; what it may point to is decided by the server's settings, in the service (400 `url`). */
/**
 * Whitespace and control characters (C0, space, DEL, C1). The URL parser silently drops tabs and newlines and
 * trims the ends, so a URL holding them is not the URL that would be dialled (`https://a.example\t.evil.com`
 * reaches `a.example.evil.com`): refused outright rather than normalised.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find control characters
const URL_UNSAFE = /[\u0000-\u0020\u007f-\u009f]/;

export const WebhookUrl = z
  .string()
  .min(1, 'must be an https:// URL')
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .refine((v) => !URL_UNSAFE.test(v), {
    message: 'must not contain spaces, tabs, line breaks or other control characters (percent-encode them)',
  })
  .openapi({
    format: 'uri',
    description:
      'HTTPS endpoint that receives events. Private, loopback, link-local and metadata addresses are refused ' +
      '(at creation for IP literals, at delivery for host names resolving to them).',
    example: 'https://example.com/hooks/minutes',
  });

export const EventType = z.enum(EVENT_TYPES).openapi('EventType', {
  description:
    'Event types a webhook can subscribe to; `note.failed` carries the note in list form plus `failure_reason`.',
});

/** What a delivery can carry: a subscribable type or `webhook.test` (sent by `POST /v1/webhooks/:id/test`). */
export const DeliveryEventType = z.enum([...EVENT_TYPES, TEST_EVENT_TYPE]).openapi('DeliveryEventType');

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
      .openapi({
        description:
          'A new signing secret, or null to stop signing; takes effect at once (for an overlap, use ' +
          '`POST /v1/webhooks/{id}/rotate-secret`).',
      }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give at least one of url, events, active, secret',
  })
  .openapi('UpdateWebhook');

/** What a webhook shows in a list; the single webhook adds to it. */
const webhookListFields = {
  id: z.string().openapi({ example: WEBHOOK_ID_EXAMPLE }),
  url: z.string(),
  events: z.array(EventType),
  active: z.boolean(),
};

export const Webhook = z
  .object({
    ...webhookListFields,
    created_at: z.string().openapi({ format: 'date-time' }),
    previous_secret_expires_at: z.string().optional().openapi({
      format: 'date-time',
      description: 'During a secret rotation: until when the replaced secret still signs.',
    }),
  })
  .openapi('Webhook', { example: EXAMPLE_WEBHOOK });

export const WebhookListItem = z
  .object(webhookListFields)
  .openapi('WebhookListItem', { example: EXAMPLE_WEBHOOK_LIST_ITEM });

export const WebhookList = z
  .object({ data: z.array(WebhookListItem) })
  .openapi('WebhookList', { example: { data: [EXAMPLE_WEBHOOK_LIST_ITEM] } });

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
  .openapi('DeliveryAttempt', { example: EXAMPLE_ATTEMPT });

export const Delivery = z
  .object({
    id: z.string().openapi({ example: DELIVERY_ID_EXAMPLE }),
    webhook_id: z.string().openapi({ example: WEBHOOK_ID_EXAMPLE }),
    event_id: z
      .string()
      .openapi({ example: EVENT_ID_EXAMPLE, description: 'Sent as X-Svc-Delivery and webhook-id.' }),
    event_type: DeliveryEventType,
    status: DeliveryStatus,
    attempt_count: z.number().int(),
    next_attempt_at: z.string().optional().openapi({ format: 'date-time', description: 'While pending.' }),
    redelivery_of: z.string().optional().openapi({ description: 'The delivery this one re-sends.' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    completed_at: z.string().optional().openapi({ format: 'date-time' }),
    attempts: z.array(DeliveryAttempt).openapi({ description: 'Every attempt, oldest first.' }),
  })
  .openapi('Delivery', { example: EXAMPLE_DELIVERY });

export const DeliveryList = z.object({ data: z.array(Delivery), meta: Meta }).openapi('DeliveryList', {
  example: { data: [EXAMPLE_DELIVERY], meta: { page: 1, per_page: 20, total: 1 } },
});

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

export const RotateSecretBody = z
  .strictObject({
    secret: WebhookSecret.optional().openapi({
      description:
        'The new secret (16–256 characters). Omitted: the server generates one and returns it once.',
    }),
    overlap_seconds: z
      .number()
      .int('must be a whole number of seconds')
      .min(0, 'must be between 0 and 2592000 (30 days)')
      .max(2_592_000, 'must be between 0 and 2592000 (30 days)')
      .optional()
      .openapi({
        description:
          'How long the replaced secret keeps signing, in seconds (default WEBHOOKS_SECRET_OVERLAP_SECONDS, 86400). ' +
          '0 cuts over at once.',
        example: 86_400,
      }),
  })
  .openapi('RotateSecret', { example: { overlap_seconds: 86_400 } });

export const RotatedSecret = z
  .object({
    id: z.string().openapi({ example: WEBHOOK_ID_EXAMPLE }),
    secret: z
      .string()
      .optional()
      .openapi({ description: 'The generated secret, shown this once (absent when you gave one).' }),
    previous_secret_expires_at: z.string().optional().openapi({
      format: 'date-time',
      description: 'Until when the replaced secret still signs; absent when nothing overlaps.',
    }),
  })
  .openapi('RotatedSecret', {
    example: {
      id: WEBHOOK_ID_EXAMPLE,
      secret: 'whsec_4Zt8Lb1Xv9Qm7Kp2Wd6Rn3Yc5Hs0Jf4T',
      previous_secret_expires_at: '2026-11-26T10:00:00.000Z',
    },
  });

export const TestDelivery = z
  .object({
    delivered: z.boolean().openapi({ description: 'Whether the endpoint answered with a 2xx status.' }),
    status_code: z.number().int().optional().openapi({ description: 'Absent when no response arrived.' }),
    error: z.string().optional().openapi({ description: 'Why the attempt failed; absent on success.' }),
    duration_ms: z.number().int(),
    delivery_id: z
      .string()
      .openapi({ description: 'The attempt in the delivery log.', example: DELIVERY_ID_EXAMPLE }),
    event_id: z
      .string()
      .openapi({ description: 'Sent as X-Svc-Delivery and webhook-id.', example: EVENT_ID_EXAMPLE }),
  })
  .openapi('TestDelivery', {
    example: {
      delivered: true,
      status_code: 200,
      duration_ms: 87,
      delivery_id: DELIVERY_ID_EXAMPLE,
      event_id: EVENT_ID_EXAMPLE,
    },
  });

/** `{deleted: true}`: the same component as the other deletes. */
export { DeletedResponse as DeletedWebhook } from '../notes/notes.schema.ts';

export type CreateWebhookInput = z.infer<typeof CreateWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookBody>;
export type ListDeliveriesInput = z.infer<typeof ListDeliveriesQuery>;
export type RotateSecretInput = z.infer<typeof RotateSecretBody>;
