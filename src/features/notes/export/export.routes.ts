import { createRoute, z } from '@hono/zod-openapi';
import type { Deps } from '../../../deps.ts';
import { apiRouter } from '../../../http/api-router.ts';
import { objectErrors } from '../../../http/schemas.ts';
import { scopedRoute } from '../../api-keys/scoped-route.ts';
import { NoteDetail, NoteIdParam } from '../notes.schema.ts';
import { exportNote } from './export.service.ts';
import { EXPORT_FORMATS } from './export-formats.ts';

export const ExportQuery = z.object({
  format: z
    .enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` })
    .optional()
    .openapi({
      param: { name: 'format', in: 'query' },
      description: 'md (default), txt, srt, vtt or json.',
      example: 'md',
    }),
});

const text = (example: string) => ({ schema: z.string().openapi({ example }) });

const exportNoteRoute = createRoute(
  scopedRoute('notes:read', {
    method: 'get',
    path: '/{id}/export',
    operationId: 'exportNote',
    tags: ['Notes'],
    summary: 'Export a note',
    description:
      'The note as a file, with `Content-Disposition: attachment; filename="<YYYY-MM-DD Title>.<ext>"`: `md` ' +
      '(Markdown with YAML front matter: title, date, tags, speakers; summary, action items as task-list ' +
      'checkboxes, highlights with timestamps, the transcript), `txt`, `srt` and `vtt` (one cue per ' +
      'segment, speakers by display name; importing the file again gives the same segments) or `json` (the ' +
      'detail form with segments). An unknown format is a 400.',
    request: { params: NoteIdParam, query: ExportQuery },
    responses: {
      200: {
        description: 'The exported file.',
        content: {
          'text/markdown': text('---\ntitle: "Q3 planning"\n…'),
          'text/plain': text('Q3 planning\n…\nMaya Chen: The budget was exceeded…\n'),
          'application/x-subrip': text('1\n00:12:34,000 --> 00:12:39,800\nMaya Chen: The budget…\n'),
          'text/vtt': text('WEBVTT\n\n00:12:34.000 --> 00:12:39.800\n<v Maya Chen>The budget…\n'),
          'application/json': { schema: NoteDetail },
        },
      },
      ...objectErrors,
    },
  }),
);

/** GET /v1/notes/{id}/export: mounted by notesRoutes. */
export function exportRoutes(deps: Deps) {
  const app = apiRouter();
  app.openapi(exportNoteRoute, async (c) => {
    const file = await exportNote(deps, c.get('actor'), {
      id: c.req.valid('param').id,
      format: c.req.valid('query').format ?? 'md',
    });
    return c.body(file.body, 200, {
      'content-type': file.contentType,
      'content-disposition': file.contentDisposition,
    }) as never;
  });
  return app;
}
