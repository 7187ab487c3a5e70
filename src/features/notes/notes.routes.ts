import { createRoute } from '@hono/zod-openapi';
import type { TypedResponse } from 'hono';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import { defaultJsonBody, JSON_CONTENT_TYPE, jsonBody } from '../../http/middleware.ts';
import { jsonRequestBody, jsonResponse } from '../../http/openapi-content.ts';
import {
  commonErrors,
  IdempotencyHeaders,
  idempotencyErrors,
  jsonBodyErrors,
  objectErrors,
  objectJsonBodyErrors,
} from '../../http/schemas.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { idempotent, idempotentResponse } from '../idempotency/idempotency.middleware.ts';
import { transcriptBody, transcriptBodyLimit } from '../transcripts/transcript-body.ts';
import { exportRoutes } from './export/export.routes.ts';
import {
  CreateNoteBody,
  DeletedResponse,
  EXAMPLE_NOTE_ACCEPTED,
  GetNoteQuery,
  ListNotesQuery,
  NoteDetail,
  NoteIdParam,
  NoteList,
  UpdateNoteBody,
  UpdateNoteResponse,
} from './notes.schema.ts';
import { acceptNote, deleteNote, getNote, listNotes, updateNote } from './notes.service.ts';
import type { NoteDetailView } from './notes.view.ts';
import { speakersRoutes } from './speakers.routes.ts';

const listNotesRoute = createRoute(
  scopedRoute('notes:read', {
    method: 'get',
    path: '/',
    tags: ['Notes'],
    operationId: 'listNotes',
    summary: 'List notes',
    description: 'Newest first (`created_at` desc, then `id` desc).',
    request: { query: ListNotesQuery },
    responses: {
      200: jsonResponse(NoteList, 'A page of notes.'),
      ...commonErrors,
    },
  }),
);

const getNoteRoute = createRoute(
  scopedRoute('notes:read', {
    method: 'get',
    path: '/{id}',
    tags: ['Notes'],
    operationId: 'getNote',
    summary: 'Get a note',
    description: 'The note with transcript, action items, highlights and speakers.',
    request: { params: NoteIdParam, query: GetNoteQuery },
    responses: { 200: jsonResponse(NoteDetail, 'The note.'), ...objectErrors },
  }),
);

const updateNoteRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('notes:write', {
      method: 'patch',
      path: '/{id}',
      tags: ['Notes'],
      operationId: 'updateNote',
      summary: 'Update a note',
      description: 'Sets the title and/or tags.',
      middleware: [defaultJsonBody(deps)] as const,
      request: {
        params: NoteIdParam,
        body: jsonRequestBody(UpdateNoteBody),
      },
      responses: {
        200: jsonResponse(UpdateNoteResponse, 'The updated fields.'),
        ...objectJsonBodyErrors,
      },
    }),
  );

const deleteNoteRoute = createRoute(
  scopedRoute('notes:write', {
    method: 'delete',
    path: '/{id}',
    tags: ['Notes'],
    operationId: 'deleteNote',
    summary: 'Delete a note',
    description: 'Permanently deletes the note and its recording, action items, highlights and speakers.',
    request: { params: NoteIdParam },
    responses: { 200: jsonResponse(DeletedResponse, 'Deleted.'), ...objectErrors },
  }),
);

const createNoteRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('notes:write', {
      method: 'post',
      path: '/',
      tags: ['Notes'],
      operationId: 'createNote',
      summary: 'Create a note from a transcript',
      description:
        'Accepts `Label: text` lines, WebVTT, SRT or timed segments. The note is stored at once with status ' +
        '`processing`; summary, action items and highlights follow when processing completes (`note.processed`). ' +
        'Honors `Idempotency-Key`.',
      middleware: [
        jsonBody(transcriptBodyLimit, deps, transcriptBody(deps, 'echoed')),
        idempotent(deps),
      ] as const,
      request: {
        headers: IdempotencyHeaders,
        body: jsonRequestBody(CreateNoteBody),
      },
      responses: {
        202: jsonResponse(NoteDetail, 'The note, accepted for processing.', EXAMPLE_NOTE_ACCEPTED),
        ...jsonBodyErrors,
        ...idempotencyErrors,
      },
    }),
  );

/** /v1/notes: list, get, create, update, delete. Routes parse, call the service, shape nothing else. */
export function notesRoutes(deps: Deps) {
  const app = apiRouter();

  app.openapi(listNotesRoute, async (c) =>
    c.json(await listNotes(deps, c.get('actor'), c.req.valid('query')), 200),
  );

  app.openapi(createNoteRoute(deps), async (c) => {
    const { json } = await acceptNote(deps, c.get('actor'), c.req.valid('json'), {
      idempotency: idempotentResponse(c, 202),
      prepared: c.get('preparedTranscript'),
    });
    // The JSON text c.json would send (noteDetailJson), made without serialising the transcript here.
    const answer = c.body(json, 202, { 'Content-Type': JSON_CONTENT_TYPE });
    return answer as unknown as TypedResponse<NoteDetailView, 202, 'json'>;
  });

  app.openapi(getNoteRoute, async (c) => {
    const include = c.req.valid('query').include ?? '';
    return c.json(
      await getNote(deps, c.get('actor'), c.req.valid('param').id, {
        segments: include.includes('segments'),
      }),
      200,
    );
  });

  app.openapi(updateNoteRoute(deps), async (c) => {
    const updated = await updateNote(deps, c.get('actor'), c.req.valid('param').id, c.req.valid('json'));
    return c.json(updated, 200);
  });

  app.openapi(deleteNoteRoute, async (c) =>
    c.json(await deleteNote(deps, c.get('actor'), c.req.valid('param').id), 200),
  );

  // Sub-resources of a note, in files of their own.
  app.route('/', speakersRoutes(deps));
  app.route('/', exportRoutes(deps));

  return app;
}
