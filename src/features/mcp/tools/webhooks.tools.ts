import { z } from 'zod';
import { WebhookList } from '../../webhooks/webhooks.schema.ts';
import { listWebhooks } from '../../webhooks/webhooks.service.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export const listWebhooksTool = defineTool({
  name: 'list_webhooks',
  title: 'List webhooks',
  description:
    "Lists the webhook subscriptions of the user's account: the HTTPS endpoint that receives events, the event " +
    'types it subscribes to (note.created, note.processed, recording.ready, action_item.created, note.failed) and ' +
    'whether it is active. Secrets are never shown. Use it to answer "where do my meeting events go?"; webhooks ' +
    'are created and changed through the REST API, not here.',
  scope: 'webhooks:manage',
  input: z.strictObject({}),
  output: WebhookList,
  annotations: READ_ONLY,
  notFoundHint: 'list_webhooks takes no ids.',
  run: ({ deps, actor }) => listWebhooks(deps, actor),
});
