import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import type { AppEnv } from '../../http/context.ts';
import { jsonResponse } from '../../http/openapi-content.ts';
import { commonErrors, documentedError, objectErrors } from '../../http/schemas.ts';
import { openapiStreamed } from '../../http/streamed-route.ts';
import { AppError } from '../../lib/errors.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { isMultipart, withMultipartUpload } from '../recordings/multipart-upload.ts';
import { getImport, startImport } from './import-run.service.ts';
import { Import, ImportIdParam, ImportUpload } from './imports.schema.ts';

/** The upload of POST /v1/imports, streamed to a temp file (removed whatever happens, unless the import took it). */
function receiveExport(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const type = c.req.header('content-type');
    if (!isMultipart(type)) {
      throw new AppError(
        'unsupported_media_type',
        `Content-Type must be multipart/form-data with the export in the field 'file', not '${type ?? 'none'}'.`,
      );
    }
    await withMultipartUpload(c, deps, next);
  };
}

/** The optional `me` field; any other field is refused by name. */
function parseFields(fields: readonly [string, string][]): { me?: string } {
  const out: { me?: string } = {};
  for (const [name, value] of fields) {
    if (name !== 'me') {
      throw new AppError('parameter_unknown', `Unknown field '${name}': an import takes 'file' and 'me'.`, {
        param: name,
      });
    }
    if (out.me !== undefined)
      throw new AppError('parameter_invalid', "Field 'me' was given more than once.", { param: 'me' });
    const me = value.trim();
    if (me.length === 0 || me.length > 200)
      throw new AppError('parameter_invalid', "Invalid 'me': must be 1 to 200 characters.", { param: 'me' });
    out.me = me;
  }
  return out;
}

const createImportRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('notes:write', {
      method: 'post',
      path: '/',
      tags: ['Imports'],
      operationId: 'createImport',
      summary: 'Import an export',
      description:
        '`multipart/form-data` with the export in `file` (up to MAX_UPLOAD_BYTES) and optional `me`. Answers 202 ' +
        'at once; the import runs as a job: follow it with `GET /v1/imports/{id}`. Each item becomes a note as ' +
        'with `minutes import` (its time, speakers, title, action items, highlights); an item imported before is ' +
        'skipped, one that cannot be read is listed in `errors` and the others are imported. Each imported note ' +
        'emits `note.created`, then `note.processed` as any note does. A note of a Minutes export from the other ' +
        'data space is not imported (listed in `errors`).',
      middleware: [receiveExport(deps)],
      request: {
        body: { required: true, content: { 'multipart/form-data': { schema: ImportUpload } } },
      },
      responses: {
        202: jsonResponse(Import, 'Accepted: the import is running.'),
        ...commonErrors,
        400: documentedError(
          'No `file`, a file that is neither ZIP nor JSON, malformed multipart, an unknown field.',
        ),
        413: documentedError('The file is larger than MAX_UPLOAD_BYTES.'),
        415: documentedError('Not multipart/form-data.'),
      },
    }),
  );

const getImportRoute = createRoute(
  scopedRoute('notes:read', {
    method: 'get',
    path: '/{id}',
    tags: ['Imports'],
    operationId: 'getImport',
    summary: 'Get an import',
    description: 'Its status and counts, and the items that failed, each named.',
    request: { params: ImportIdParam },
    responses: { 200: jsonResponse(Import, 'The import.'), ...objectErrors },
  }),
);

/** /v1/imports: start an import of an uploaded export, and follow it. */
export function importsRoutes(deps: Deps) {
  const app = apiRouter();

  openapiStreamed(app, createImportRoute(deps), async (c) => {
    const upload = c.get('upload');
    const fields = parseFields(upload?.fields ?? []);
    if (!upload?.file) {
      throw new AppError('parameter_missing', "Missing required parameter 'file': the export to import.", {
        param: 'file',
      });
    }
    return c.json(await startImport(deps, c.get('actor'), upload.file, fields), 202);
  });

  app.openapi(getImportRoute, async (c) =>
    c.json(await getImport(deps, c.get('actor'), c.req.valid('param').id), 200),
  );

  return app;
}
