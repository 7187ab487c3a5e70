import { Readable } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../../deps.ts';
import { apiRouter } from '../../http/api-router.ts';
import type { AppEnv } from '../../http/context.ts';
import { jsonBody } from '../../http/middleware.ts';
import { jsonResponse } from '../../http/openapi-content.ts';
import {
  commonErrors,
  documentedError,
  IdempotencyHeaders,
  idempotencyErrors,
  objectErrors,
} from '../../http/schemas.ts';
import { openapiStreamed } from '../../http/streamed-route.ts';
import { zodIssueToError } from '../../http/validation.ts';
import { AppError } from '../../lib/errors.ts';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { scopedRoute } from '../api-keys/scoped-route.ts';
import { idempotent, idempotentResponse } from '../idempotency/idempotency.middleware.ts';
import { CreateNoteBody } from '../notes/notes.schema.ts';
import { transcriptBody, transcriptBodyLimit } from '../transcripts/transcript-body.ts';
import { audioResponseHeaders } from './audio-headers.ts';
import { isMultipart, withMultipartUpload } from './multipart-upload.ts';
import {
  ListRecordingsQuery,
  Recording,
  RecordingAccepted,
  RecordingIdParam,
  RecordingList,
  RecordingUpload,
} from './recordings.schema.ts';
import {
  createRecordingFromAudio,
  createRecordingFromTranscript,
  getRecording,
  listRecordings,
  parseUploadFields,
  readRecordingAudio,
} from './recordings.service.ts';

const JSON_TYPE = /^application\/(.+\+)?json\s*(;|$)/i;

/**
 * The body of POST /v1/recordings: `multipart/form-data` is streamed to a temp file under DATA_DIR (413 past
 * MAX_UPLOAD_BYTES, temp file removed whatever happens next), JSON is read like POST /v1/notes, anything else
 * is a 415 naming both.
 */
function ingestBody(deps: Deps): MiddlewareHandler<AppEnv> {
  const readJson = jsonBody(transcriptBodyLimit, deps, transcriptBody(deps, 'recorded'));
  return async (c, next) => {
    const type = c.req.header('content-type');
    if (isMultipart(type)) return withMultipartUpload(c, deps, next);
    if (type === undefined || JSON_TYPE.test(type)) return readJson(c, next);
    throw new AppError(
      'unsupported_media_type',
      `Content-Type must be multipart/form-data (an audio upload in the field 'file') or application/json (a transcript), not '${type}'.`,
    );
  };
}

/** What identifies a repeated upload for Idempotency-Key: the form fields and the file's hash, not its bytes. */
async function fingerprintBody(c: Context<AppEnv>): Promise<unknown> {
  const upload = c.get('upload');
  if (!upload) return c.req.json().catch(() => null);
  return {
    fields: upload.fields,
    file: upload.file
      ? { sha256: upload.file.sha256, size: upload.file.size, filename: upload.file.filename ?? null }
      : null,
  };
}

const listRecordingsRoute = createRoute(
  scopedRoute('recordings:read', {
    method: 'get',
    path: '/',
    tags: ['Recordings'],
    operationId: 'listRecordings',
    summary: 'List recordings',
    description: 'Newest first (`created_at` desc, then `id` desc); `from`/`to` as for notes.',
    request: { query: ListRecordingsQuery },
    responses: { 200: jsonResponse(RecordingList, 'A page of recordings.'), ...commonErrors },
  }),
);

const getRecordingRoute = createRoute(
  scopedRoute('recordings:read', {
    method: 'get',
    path: '/{id}',
    tags: ['Recordings'],
    operationId: 'getRecording',
    summary: 'Get a recording',
    description: 'Type, size and duration of a recording, and its note.',
    request: { params: RecordingIdParam },
    responses: { 200: jsonResponse(Recording, 'The recording.'), ...objectErrors },
  }),
);

const audioContent = {
  'audio/*': { schema: z.string().openapi({ type: 'string', format: 'binary' } as never) },
};
// The example recording (EXAMPLE): 28 880 417 bytes of MP3; the range is its first MiB.
const header = (description: string, type: 'string' | 'integer', example: string | number) => ({
  description,
  schema: { type },
  example,
});
const audioHeaders = (range: boolean) => ({
  'Content-Type': header('The stored type, sniffed from the bytes at upload.', 'string', 'audio/mpeg'),
  'Content-Length': header('Bytes in this response.', 'integer', range ? 1_048_576 : 28_880_417),
  ...(range
    ? {
        'Content-Range': header('The bytes sent, of the whole file.', 'string', 'bytes 0-1048575/28880417'),
      }
    : {}),
  'Accept-Ranges': header('Byte ranges are supported.', 'string', 'bytes'),
  ETag: header(
    'Identifies this file; send it back in `If-Range`.',
    'string',
    `"${EXAMPLE.recordingId}-28880417"`,
  ),
  'Content-Disposition': header('The file name.', 'string', `inline; filename="${EXAMPLE.recordingId}.mp3"`),
});

const getRecordingAudioRoute = createRoute(
  scopedRoute('recordings:read', {
    method: 'get',
    path: '/{id}/audio',
    tags: ['Recordings'],
    operationId: 'getRecordingAudio',
    summary: 'Download the audio of a recording',
    description:
      'Streams the stored file with its content type. Supports a single `Range: bytes=…` (206 with ' +
      '`Content-Range`; 416 when it starts past the end; several ranges get the whole file) and `If-Range` ' +
      'with the `ETag`. A recording made from a transcript has no audio (404).',
    request: { params: RecordingIdParam },
    responses: {
      200: { description: 'The whole audio file.', headers: audioHeaders(false), content: audioContent },
      206: {
        description: 'The requested byte range.',
        headers: audioHeaders(true),
        content: audioContent,
      },
      ...objectErrors,
      416: documentedError('The range starts past the end of the file (`Content-Range: bytes */<size>`).'),
    },
  }),
);

const uploadRecordingRoute = (deps: Deps) =>
  createRoute(
    scopedRoute('notes:write', {
      method: 'post',
      path: '/',
      tags: ['Recordings'],
      operationId: 'uploadRecording',
      summary: 'Upload a recording',
      description:
        'Either `multipart/form-data` with the audio in `file` (wav, mp3, m4a, ogg/opus, webm, flac; streamed to ' +
        'disk, up to MAX_UPLOAD_BYTES, 500 MB by default) and optional `title`, `created_at`, `tags`; or JSON with ' +
        'a transcript, as for `POST /v1/notes`. Creates the recording and its note (status `processing`) and ' +
        'answers 202; `recording.ready` and `note.created` are emitted at once, `action_item.created` and ' +
        '`note.processed` when processing completes. Audio is transcribed by the configured provider first; ' +
        'without one the note ends `failed` with the reason. Honors `Idempotency-Key` (for uploads the file ' +
        'is compared by its SHA-256).',
      middleware: [ingestBody(deps), idempotent(deps, { bodyOf: fingerprintBody })],
      request: {
        headers: IdempotencyHeaders,
        body: {
          required: true,
          content: {
            'multipart/form-data': { schema: RecordingUpload },
            'application/json': { schema: CreateNoteBody },
          },
        },
      },
      responses: {
        202: jsonResponse(
          RecordingAccepted,
          'Accepted: the recording is stored and its note is being processed.',
        ),
        ...commonErrors,
        400: documentedError(
          'Invalid input: a bad field, no `file`, a corrupt audio file, malformed multipart or JSON, an unknown field.',
        ),
        413: documentedError(
          'The file is larger than MAX_UPLOAD_BYTES, or the transcript larger than allowed.',
        ),
        415: documentedError(
          'Not multipart/form-data or JSON, or the file is not audio of a supported format.',
        ),
        ...idempotencyErrors,
      },
    }),
  );

/** /v1/recordings: ingest (audio upload or transcript), list, get, download the audio. */
export function recordingsRoutes(deps: Deps) {
  const app = apiRouter();

  openapiStreamed(app, uploadRecordingRoute(deps), async (c) => {
    const actor = c.get('actor');
    const upload = c.get('upload');
    let accepted: Awaited<ReturnType<typeof createRecordingFromTranscript>>;
    if (upload) {
      const fields = parseUploadFields(upload.fields);
      if (!upload.file) {
        throw new AppError('parameter_missing', "Missing required parameter 'file': the audio to upload.", {
          param: 'file',
        });
      }
      accepted = await createRecordingFromAudio(deps, actor, upload.file, fields, {
        idempotency: idempotentResponse(c, 202),
      });
    } else {
      const body: unknown = await c.req.json();
      const parsed = CreateNoteBody.safeParse(body);
      if (!parsed.success) throw zodIssueToError(parsed.error, 'json', { value: body });
      accepted = await createRecordingFromTranscript(deps, actor, parsed.data, {
        idempotency: idempotentResponse(c, 202),
        prepared: c.get('preparedTranscript'),
      });
    }
    return c.json(accepted, 202);
  });

  app.openapi(listRecordingsRoute, async (c) =>
    c.json(await listRecordings(deps, c.get('actor'), c.req.valid('query')), 200),
  );

  app.openapi(getRecordingRoute, async (c) =>
    c.json(await getRecording(deps, c.get('actor'), c.req.valid('param').id), 200),
  );

  app.openapi(getRecordingAudioRoute, async (c) => {
    const audio = await readRecordingAudio(deps, c.get('actor'), c.req.valid('param').id, {
      range: c.req.header('range'),
      ifRange: c.req.header('if-range'),
    });
    if (audio.kind === 'unsatisfiable') {
      throw new AppError(
        'range_not_satisfiable',
        `The requested range is not satisfiable: the file has ${audio.size} bytes.`,
        { param: 'Range', headers: { 'Content-Range': `bytes */${audio.size}`, 'Accept-Ranges': 'bytes' } },
      );
    }
    const headers: Record<string, string> = {
      ...audioResponseHeaders(audio),
      'Content-Disposition': `inline; filename="${audio.filename}"`,
    };
    // HEAD: the headers only, and no file opened.
    if (c.req.method === 'HEAD') return c.body(null, audio.status, headers);
    const stream = Readable.toWeb(await audio.open()) as unknown as ReadableStream<Uint8Array>;
    return c.body(stream, audio.status, headers);
  });

  return app;
}
