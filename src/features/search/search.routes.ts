import { createRoute } from '@hono/zod-openapi';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import { defaultJsonBody } from '../../http/middleware.ts';
import { jsonRequestBody, jsonResponse } from '../../http/openapi-content.ts';
import { jsonBodyErrors } from '../../http/schemas.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { SearchBody, SearchResponse } from './search.schema.ts';
import { searchNotes } from './search.service.ts';

const searchNotesRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('search', {
      method: 'post',
      path: '/',
      tags: ['Search'],
      operationId: 'searchNotes',
      summary: 'Search notes',
      description:
        'Finds notes by meaning and by keywords (hybrid: keyword index + vector index, fused), one result per ' +
        'note, most relevant first. `relevance` is calibrated to [0, 1] with 0.5 as the line between relevant ' +
        'and not; results below `min_relevance` (default 0.5) are left out, so an empty list means nothing ' +
        'relevant was found. The snippet is the best excerpt of the note; `matched_at_ms` says where it is ' +
        'in the recording.',
      middleware: [defaultJsonBody(deps)] as const,
      request: { body: jsonRequestBody(SearchBody) },
      responses: {
        200: jsonResponse(SearchResponse, 'Matching notes, most relevant first.'),
        ...jsonBodyErrors,
      },
    }),
  );

/** POST /v1/search. */
export const searchRoutes = (deps: Deps) =>
  apiRouter().openapi(searchNotesRoute(deps), async (c) =>
    c.json(await searchNotes(deps, c.get('actor'), c.req.valid('json')), 200),
  );
