import { createRoute } from '@hono/zod-openapi';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import { defaultJsonBody } from '../../http/middleware.ts';
import { jsonRequestBody, jsonResponse } from '../../http/openapi-content.ts';
import { objectJsonBodyErrors } from '../../http/schemas.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { NoteIdParam } from './notes.schema.ts';
import { UpdateSpeakersBody, UpdateSpeakersResponse } from './speakers.schema.ts';
import { updateSpeakers } from './speakers.service.ts';

const renameSpeakersRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('notes:write', {
      method: 'patch',
      path: '/{id}/speakers',
      operationId: 'renameSpeakers',
      tags: ['Notes'],
      summary: 'Rename or merge speakers',
      description:
        '`speakers` sets display names by label (name 1–100 characters); `merge` merges two labels (every turn ' +
        'of `from` becomes a turn of `into`; applied before the names). The transcript lines, the speakers list, ' +
        'action-item assignees that carried a speaker’s old name and the search index follow. A label the note ' +
        'does not have is a 400.',
      middleware: [defaultJsonBody(deps)] as const,
      request: {
        params: NoteIdParam,
        body: jsonRequestBody(UpdateSpeakersBody),
      },
      responses: {
        200: jsonResponse(UpdateSpeakersResponse, 'The note id and its speakers after the change.'),
        ...objectJsonBodyErrors,
      },
    }),
  );

/** PATCH /v1/notes/{id}/speakers: mounted by notesRoutes. */
export const speakersRoutes = (deps: Deps) =>
  apiRouter().openapi(renameSpeakersRoute(deps), async (c) =>
    c.json(await updateSpeakers(deps, c.get('actor'), c.req.valid('param').id, c.req.valid('json')), 200),
  );
