import { createRoute } from '@hono/zod-openapi';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import { defaultJsonBody } from '../../http/middleware.ts';
import { jsonRequestBody, jsonResponse } from '../../http/openapi-content.ts';
import { commonErrors, objectJsonBodyErrors } from '../../http/schemas.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import {
  ActionItem,
  ActionItemIdParam,
  ActionItemList,
  ListActionItemsQuery,
  UpdateActionItemBody,
} from './action-items.schema.ts';
import { listActionItems, updateActionItem } from './action-items.service.ts';

const listActionItemsRoute = createRoute(
  scopedRoute('actions:read', {
    method: 'get',
    path: '/',
    tags: ['Action items'],
    operationId: 'listActionItems',
    summary: 'List action items',
    description:
      'Action items across all notes, newest first (`created_at` desc, then `id` desc), filterable by ' +
      '`status`, `note_id` and `assignee`.',
    request: { query: ListActionItemsQuery },
    responses: { 200: jsonResponse(ActionItemList, 'A page of action items.'), ...commonErrors },
  }),
);

const updateActionItemRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('actions:write', {
      method: 'patch',
      path: '/{id}',
      tags: ['Action items'],
      operationId: 'updateActionItem',
      summary: 'Update an action item',
      description:
        'Sets `status`, `text`, `due` and/or `assignee`; `null` clears `due` or `assignee`. Completing ' +
        'sets `completed_at` (unchanged if it already was completed); back to `pending` removes it.',
      middleware: [defaultJsonBody(deps)] as const,
      request: {
        params: ActionItemIdParam,
        body: jsonRequestBody(UpdateActionItemBody),
      },
      responses: {
        200: jsonResponse(ActionItem, 'The whole action item after the update.'),
        ...objectJsonBodyErrors,
      },
    }),
  );

/** /v1/action-items: list across notes, update one. Routes parse, call the service, shape nothing else. */
export function actionItemsRoutes(deps: Deps) {
  const app = apiRouter();

  app.openapi(listActionItemsRoute, async (c) =>
    c.json(await listActionItems(deps, c.get('actor'), c.req.valid('query')), 200),
  );

  app.openapi(updateActionItemRoute(deps), async (c) =>
    c.json(await updateActionItem(deps, c.get('actor'), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  return app;
}
