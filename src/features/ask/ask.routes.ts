import { createRoute } from '@hono/zod-openapi';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import { defaultJsonBody } from '../../http/middleware.ts';
import { jsonRequestBody, jsonResponse } from '../../http/openapi-content.ts';
import { objectJsonBodyErrors } from '../../http/schemas.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { AskBody, AskResponse } from './ask.schema.ts';
import { askNotes } from './ask.service.ts';

const askNotesRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('search', {
      method: 'post',
      path: '/',
      tags: ['Search'],
      operationId: 'askNotes',
      summary: 'Ask the notes',
      description:
        'Answers a question from the notes, every sentence cited: `[n]` in `answer` refers to `citations[n-1]`, ' +
        "whose `quote` occurs verbatim in that note's transcript and whose `start_ms` is where it was said. " +
        'With `note_id` one note is asked; otherwise the notes search finds relevant (within `from`, `to`, ' +
        '`tag`), grouped by note, newest first when the question is about time. When nothing relevant is ' +
        'found, `answered` is false and `citations` is empty. Without a language model the answer is ' +
        'extractive: sentences of the notes themselves. With a language model (`ANALYZER=openai`) it may be ' +
        'generated (`mode: "generative"`) from the located passages only; a citation whose quote does not ' +
        'occur in the notes is dropped, with any sentence left without one.',
      middleware: [defaultJsonBody(deps)] as const,
      request: { body: jsonRequestBody(AskBody) },
      responses: {
        200: jsonResponse(AskResponse, 'The answer with its citations.'),
        ...objectJsonBodyErrors,
      },
    }),
  );

/** POST /v1/ask. */
export const askRoutes = (deps: Deps) =>
  apiRouter().openapi(askNotesRoute(deps), async (c) =>
    c.json(await askNotes(deps, c.get('actor'), c.req.valid('json')), 200),
  );
