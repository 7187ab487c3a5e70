import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { ActionItem } from '../action-items/action-items.schema.ts';
import { type AnyEventType, EVENT_TYPES, TEST_EVENT_TYPE } from '../events/events.ts';
import { NoteDetail, NoteListItem } from '../notes/notes.schema.ts';
import { Recording } from '../recordings/recordings.schema.ts';

/** `data` of `note.failed`: the note in list form plus why processing gave up. */
export const NoteFailedData = NoteListItem.extend({
  failure_reason: z.string().openapi({ example: 'No transcriber is configured (set TRANSCRIBER=openai).' }),
}).openapi('NoteFailedData', {
  example: {
    id: 'note_9Zt4Wd1Kp7Lb3Xv8Qm2Yc6Rn',
    title: 'Weekly sync',
    summary: '',
    created_at: EXAMPLE.recordedAt,
    duration_seconds: 1805,
    recording_id: EXAMPLE.recordingId,
    tags: ['team'],
    highlights: 0,
    failure_reason: 'No transcriber is configured (set TRANSCRIBER=openai).',
  },
});

/** `data` of `webhook.test`. */
export const WebhookTestData = z
  .object({ webhook_id: z.string().openapi({ example: EXAMPLE.webhookId }), message: z.string() })
  .openapi('WebhookTestData', {
    example: {
      webhook_id: EXAMPLE.webhookId,
      message: 'A test event sent with POST /v1/webhooks/{id}/test. No action is needed.',
    },
  });

/** What `data` holds for each event type (API.md). A new event type fails typecheck here until it has one. */
const EVENT_PAYLOADS: Record<
  AnyEventType,
  { data: z.ZodType; name: string; summary: string; operationId: string }
> = {
  'recording.ready': {
    data: Recording,
    name: 'RecordingReadyEvent',
    summary: 'A recording was stored (data: the recording)',
    operationId: 'onRecordingReady',
  },
  'note.created': {
    data: NoteListItem,
    name: 'NoteCreatedEvent',
    summary: 'A note was created (data: the note in list form)',
    operationId: 'onNoteCreated',
  },
  'action_item.created': {
    data: ActionItem,
    name: 'ActionItemCreatedEvent',
    summary: 'Processing extracted an action item (data: the action item)',
    operationId: 'onActionItemCreated',
  },
  'note.processed': {
    data: NoteDetail,
    name: 'NoteProcessedEvent',
    summary: 'A note finished processing (data: the note in detail form)',
    operationId: 'onNoteProcessed',
  },
  'note.failed': {
    data: NoteFailedData,
    name: 'NoteFailedEvent',
    summary: 'Processing gave up on a note (data: the note in list form plus failure_reason)',
    operationId: 'onNoteFailed',
  },
  [TEST_EVENT_TYPE]: {
    data: WebhookTestData,
    name: 'WebhookTestEvent',
    summary:
      'A test event from POST /v1/webhooks/{id}/test, sent to that webhook only (cannot be subscribed to)',
    operationId: 'onWebhookTest',
  },
};

const header = (description: string, example: string) => z.string().openapi({ description, example });

/** The headers of every delivery (src/features/webhooks/delivery/sign-payload.ts). */
const DeliveryHeaders = z.object({
  'webhook-id': header(
    'The event id (`evt_…`): the same across retries and redeliveries.',
    'evt_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W',
  ),
  'webhook-timestamp': header('Unix seconds of this attempt.', '1795600931'),
  'webhook-signature': header(
    'With a secret: `v1,` + base64 HMAC-SHA256 keyed with the secret’s UTF-8 bytes over `id.timestamp.body` ' +
      '(Standard Webhooks; svix receivers pass `whsec_` + base64(secret)).',
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ).optional(),
  'x-svc-signature': header(
    'With a secret: lowercase hex HMAC-SHA256 of the raw body.',
    '5d41402abc4b2a76b9719d911017c592',
  ).optional(),
  'x-svc-event': header('The event type.', 'note.processed'),
  'x-svc-delivery': header('The event id, as `webhook-id`.', 'evt_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W'),
});

/**
 * Describes what Minutes POSTs to a webhook URL, one entry per event type under the document's top-level
 * `webhooks` (OpenAPI 3.1), so receivers can generate typed payloads like they generate clients.
 */
export function documentWebhookEvents(registry: OpenAPIHono['openAPIRegistry']): void {
  for (const type of [...EVENT_TYPES, TEST_EVENT_TYPE] as const) {
    const { data, name, summary, operationId } = EVENT_PAYLOADS[type];
    const body = z
      .object({
        id: z.string().openapi({ description: 'The event id (`evt_…`); de-duplicate on it.' }),
        type: z.literal(type),
        created_at: z.string().openapi({ format: 'date-time', example: '2026-11-25T10:02:11.480Z' }),
        data,
      })
      .openapi(name);
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId,
      tags: ['Webhooks'],
      summary,
      description:
        (type === TEST_EVENT_TYPE
          ? 'Sent only by `POST /v1/webhooks/{id}/test`, to that webhook, signed with its secret. '
          : `Sent to every active webhook subscribed to \`${type}\`, signed with its secret (two \`v1,\` signatures during a secret rotation). `) +
        'Answer any 2xx within WEBHOOKS_TIMEOUT_MS to acknowledge; anything else is retried on the schedule.',
      request: {
        headers: DeliveryHeaders,
        body: { required: true, content: { 'application/json': { schema: body } } },
      },
      responses: {
        200: { description: 'Any 2xx acknowledges the delivery; the body is ignored.' },
      },
    });
  }
}
