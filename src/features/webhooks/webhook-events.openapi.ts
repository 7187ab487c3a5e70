import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../http/schemas.ts';
import { ActionItem } from '../action-items/action-items.schema.ts';
import { type AnyEventType, TEST_EVENT_TYPE } from '../events/events.ts';
import { NoteDetail, NoteListItem } from '../notes/notes.schema.ts';
import { Recording } from '../recordings/recordings.schema.ts';

/** `data` of `note.failed` (ext): the note in list form plus why processing gave up. */
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

/** `data` of `webhook.test` (ext). */
export const WebhookTestData = z
  .object({ webhook_id: z.string().openapi({ example: EXAMPLE.webhookId }), message: z.string() })
  .openapi('WebhookTestData', {
    example: {
      webhook_id: EXAMPLE.webhookId,
      message: 'A test event sent with POST /v1/webhooks/{id}/test. No action is needed.',
    },
  });

const EVENTS: [AnyEventType, z.ZodType, string][] = [
  ['recording.ready', Recording, 'A recording was stored; `data` is the recording.'],
  [
    'note.created',
    NoteListItem,
    'A note was created (status `processing`); `data` is the note in list form.',
  ],
  ['action_item.created', ActionItem, 'Processing found an action item; `data` is the action item.'],
  ['note.processed', NoteDetail, 'Processing finished; `data` is the note in detail form.'],
  [
    'note.failed',
    NoteFailedData,
    '(ext) Processing gave up on the note; `data` is the note in list form plus `failure_reason`.',
  ],
  [
    TEST_EVENT_TYPE,
    WebhookTestData,
    '(ext) Sent only by `POST /v1/webhooks/{id}/test`, to that webhook; cannot be subscribed to.',
  ],
];

/**
 * The events a webhook receives, as OpenAPI 3.1 `webhooks` (one per type): the body `{id, type, created_at,
 * data}` with each type's `data`. Headers and signatures are described in docs/webhooks.md.
 */
export function documentWebhookEvents(registry: OpenAPIHono['openAPIRegistry']): void {
  for (const [type, data, description] of EVENTS) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      tags: ['Webhooks'],
      summary: `${type} event`,
      description:
        `${description} Signed with \`X-Svc-Signature\` and Standard Webhooks \`webhook-signature\` when the ` +
        'webhook has a secret (two `v1,` signatures during a secret rotation).',
      request: {
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({
                id: z.string().openapi({ example: EXAMPLE.eventId }),
                type: z.literal(type),
                created_at: z.string().openapi({ format: 'date-time' }),
                data,
              }),
            },
          },
        },
      },
      responses: {
        200: { description: 'Any 2xx status acknowledges the delivery; anything else is retried.' },
      },
    });
  }
}
