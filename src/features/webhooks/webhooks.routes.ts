import { createRoute } from '@hono/zod-openapi';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import { defaultJsonBody } from '../../http/middleware.ts';
import { jsonRequestBody, jsonResponse } from '../../http/openapi-content.ts';
import {
  commonErrors,
  documentedError,
  jsonBodyErrors,
  objectErrors,
  objectJsonBodyErrors,
} from '../../http/schemas.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { webhookExtrasRoutes } from './webhook-extras.routes.ts';
import {
  CreateWebhookBody,
  DeletedWebhook,
  Delivery,
  DeliveryList,
  DeliveryParams,
  EXAMPLE_REDELIVERY,
  ListDeliveriesQuery,
  UpdateWebhookBody,
  Webhook,
  WebhookIdParam,
  WebhookList,
} from './webhooks.schema.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliverDelivery,
  updateWebhook,
} from './webhooks.service.ts';

/** POST /v1/webhooks over WEBHOOKS_MAX_PER_ACCOUNT. */
const webhookLimitError = {
  409: documentedError(
    'The account already has as many webhooks in this mode as allowed (`webhook_limit_reached`).',
  ),
} as const;

const listWebhooksRoute = createRoute(
  scopedRoute('webhooks:manage', {
    method: 'get',
    path: '/',
    tags: ['Webhooks'],
    operationId: 'listWebhooks',
    summary: 'List webhooks',
    description:
      'Every webhook of the caller’s account and mode, oldest first; not paged (at most ' +
      '`WEBHOOKS_MAX_PER_ACCOUNT` entries, default 20).',
    responses: { 200: jsonResponse(WebhookList, 'The webhooks.'), ...commonErrors },
  }),
);

const getWebhookRoute = createRoute(
  scopedRoute('webhooks:manage', {
    method: 'get',
    path: '/{id}',
    tags: ['Webhooks'],
    operationId: 'getWebhook',
    summary: 'Get a webhook',
    description: `One webhook (without its secret).`,
    request: { params: WebhookIdParam },
    responses: { 200: jsonResponse(Webhook, 'The webhook.'), ...objectErrors },
  }),
);

const deleteWebhookRoute = createRoute(
  scopedRoute('webhooks:manage', {
    method: 'delete',
    path: '/{id}',
    tags: ['Webhooks'],
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    description: `Deletes the subscription; deliveries not yet sent are cancelled.`,
    request: { params: WebhookIdParam },
    responses: { 200: jsonResponse(DeletedWebhook, 'Deleted.'), ...objectErrors },
  }),
);

const redeliverWebhookDeliveryRoute = createRoute(
  scopedRoute('webhooks:manage', {
    method: 'post',
    path: '/{id}/deliveries/{delivery_id}/redeliver',
    tags: ['Webhooks'],
    operationId: 'redeliverWebhookDelivery',
    summary: 'Redeliver an event',
    description:
      'Sends the delivery’s event again as a new delivery with its own retries; the event id ' +
      '(`X-Svc-Delivery`, `webhook-id`) stays the same, so receivers can de-duplicate. The webhook must be ' +
      'active (400 otherwise). An event written before the webhook’s URL last changed needs the scope that ' +
      'reads it as well (`notes:read` for note events, `actions:read`, `recordings:read`; 403 otherwise).',
    request: { params: DeliveryParams },
    responses: {
      202: jsonResponse(Delivery, 'The new delivery, queued.', EXAMPLE_REDELIVERY),
      ...objectErrors,
    },
  }),
);

const createWebhookRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('webhooks:manage', {
      method: 'post',
      path: '/',
      tags: ['Webhooks'],
      operationId: 'createWebhook',
      summary: 'Create a webhook',
      description:
        'Subscribes an HTTPS URL to event types of the caller’s account and mode (a test key’s webhook receives ' +
        'test-mode events only). It receives events written after its creation. The optional `secret` signs ' +
        'every delivery (`X-Svc-Signature`, Standard Webhooks `webhook-signature`) and is never returned. ' +
        'An account has at most `WEBHOOKS_MAX_PER_ACCOUNT` (default 20) webhooks per mode: 409 ' +
        '`webhook_limit_reached` beyond.',
      middleware: [defaultJsonBody(deps)] as const,
      request: { body: jsonRequestBody(CreateWebhookBody) },
      responses: {
        201: jsonResponse(Webhook, 'The webhook (without its secret).'),
        ...jsonBodyErrors,
        ...webhookLimitError,
      },
    }),
  );

const updateWebhookRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('webhooks:manage', {
      method: 'patch',
      path: '/{id}',
      tags: ['Webhooks'],
      operationId: 'updateWebhook',
      summary: 'Update a webhook',
      description:
        'Changes `url`, `events`, `active` or `secret` (`null` stops signing). `active: false` cancels the ' +
        'deliveries still waiting; events written while inactive are not sent later.',
      middleware: [defaultJsonBody(deps)] as const,
      request: {
        params: WebhookIdParam,
        body: jsonRequestBody(UpdateWebhookBody),
      },
      responses: {
        200: jsonResponse(Webhook, 'The updated webhook.'),
        ...objectJsonBodyErrors,
      },
    }),
  );

const listWebhookDeliveriesRoute = createRoute(
  scopedRoute('webhooks:manage', {
    method: 'get',
    path: '/{id}/deliveries',
    tags: ['Webhooks'],
    operationId: 'listWebhookDeliveries',
    summary: 'List deliveries',
    description:
      'The delivery log, newest first: one delivery per event sent to this webhook, each with every attempt ' +
      '(status code, duration, error, the start of the response body). Filter by `status` or `event_id`.',
    request: { params: WebhookIdParam, query: ListDeliveriesQuery },
    responses: {
      200: jsonResponse(DeliveryList, 'A page of deliveries.'),
      ...objectErrors,
    },
  }),
);

/** /v1/webhooks: subscriptions, their delivery log and redelivery. Routes parse, call the service, nothing else. */
export function webhooksRoutes(deps: Deps) {
  const app = apiRouter();
  app.openapi(createWebhookRoute(deps), async (c) =>
    c.json(await createWebhook(deps, c.get('actor'), c.req.valid('json')), 201),
  );

  app.openapi(listWebhooksRoute, async (c) => c.json(await listWebhooks(deps, c.get('actor')), 200));

  app.openapi(getWebhookRoute, async (c) =>
    c.json(await getWebhook(deps, c.get('actor'), c.req.valid('param').id), 200),
  );

  app.openapi(updateWebhookRoute(deps), async (c) =>
    c.json(await updateWebhook(deps, c.get('actor'), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  app.openapi(deleteWebhookRoute, async (c) =>
    c.json(await deleteWebhook(deps, c.get('actor'), c.req.valid('param').id), 200),
  );

  app.openapi(listWebhookDeliveriesRoute, async (c) =>
    c.json(await listDeliveries(deps, c.get('actor'), c.req.valid('param').id, c.req.valid('query')), 200),
  );

  app.openapi(redeliverWebhookDeliveryRoute, async (c) => {
    const { id, delivery_id } = c.req.valid('param');
    return c.json(await redeliverDelivery(deps, c.get('actor'), id, delivery_id), 202);
  });

  // Test deliveries and secret rotation, in files of their own.
  app.route('/', webhookExtrasRoutes(deps));

  return app;
}
