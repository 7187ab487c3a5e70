import { createRoute } from '@hono/zod-openapi';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import { defaultJsonBody } from '../../http/middleware.ts';
import { jsonRequestBody, jsonResponse } from '../../http/openapi-content.ts';
import { objectErrors, objectJsonBodyErrors } from '../../http/schemas.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { rotateWebhookSecret, sendTestEvent } from './webhook-extras.service.ts';
import { RotatedSecret, RotateSecretBody, TestDelivery, WebhookIdParam } from './webhooks.schema.ts';

const testWebhookRoute = createRoute(
  scopedRoute('webhooks:manage', {
    method: 'post',
    path: '/{id}/test',
    operationId: 'testWebhook',
    tags: ['Webhooks'],
    summary: 'Send a test event',
    description:
      'Sends a signed `webhook.test` event (`data: {webhook_id, message}`) to this webhook only, now, once ' +
      '(no retries; also when the webhook is inactive), and answers with the attempt’s outcome. The attempt ' +
      'appears in the webhook’s delivery log like any delivery. A receiver that answers non-2xx, times out ' +
      'or is refused by the outbound guard gives `delivered: false` with the reason, still a 200. At most ' +
      'WEBHOOKS_CONCURRENCY_PER_ACCOUNT test events of an account are in flight at once (429 `rate_limited` ' +
      'with Retry-After beyond).',
    request: { params: WebhookIdParam },
    responses: {
      200: jsonResponse(TestDelivery, 'The outcome of the attempt.'),
      ...objectErrors,
    },
  }),
);

const rotateWebhookSecretRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('webhooks:manage', {
      method: 'post',
      path: '/{id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      tags: ['Webhooks'],
      summary: 'Rotate the signing secret',
      description:
        'Sets a new signing secret (given, or generated and returned once) while the old one keeps signing for ' +
        '`overlap_seconds` (default WEBHOOKS_SECRET_OVERLAP_SECONDS, 24 h): meanwhile `webhook-signature` holds ' +
        'two space-separated `v1,` signatures (new, then old) and `X-Svc-Signature` the new one. A rotation ' +
        'during an overlap drops the oldest secret. `PATCH` with `secret` cuts over at once instead.',
      middleware: [defaultJsonBody(deps)] as const,
      request: {
        params: WebhookIdParam,
        body: jsonRequestBody(RotateSecretBody),
      },
      responses: {
        200: jsonResponse(
          RotatedSecret,
          'The rotation: the generated secret (once) and the end of the overlap.',
        ),
        ...objectJsonBodyErrors,
      },
    }),
  );

/** POST /v1/webhooks/{id}/test and /rotate-secret: mounted by webhooksRoutes. */
export function webhookExtrasRoutes(deps: Deps) {
  const app = apiRouter();

  app.openapi(testWebhookRoute, async (c) =>
    c.json(await sendTestEvent(deps, c.get('actor'), c.req.valid('param').id), 200),
  );

  app.openapi(rotateWebhookSecretRoute(deps), async (c) =>
    c.json(
      await rotateWebhookSecret(deps, c.get('actor'), c.req.valid('param').id, c.req.valid('json')),
      200,
    ),
  );

  return app;
}
