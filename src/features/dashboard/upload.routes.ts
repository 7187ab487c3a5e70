import fs from 'node:fs/promises';
import path from 'node:path';
import type { Hono } from 'hono';
import { importPage, uploadPage } from '../../../web/pages/upload.pages.ts';
import type { Deps } from '../../deps.ts';
import { zodIssueToError } from '../../http/validation.ts';
import { AppError } from '../../lib/errors.ts';
import { getImport, startImport } from '../imports/import-run.service.ts';
import { CreateNoteBody } from '../notes/notes.schema.ts';
import { isMultipart, receiveMultipart, type UploadedFile } from '../recordings/multipart-upload.ts';
import {
  createRecordingFromAudio,
  createRecordingFromTranscript,
  parseUploadFields,
} from '../recordings/recordings.service.ts';
import { removeTempFile } from '../storage/temp-files.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { render, shellOf, statusOf } from './respond.ts';
import { csrfFieldOk } from './session.ts';

const TRANSCRIPT_EXTENSIONS = new Set(['.txt', '.vtt', '.srt', '.json']);
/** The fields of a JSON transcript file that a note takes (anything else in the file is ignored). */
const JSON_FIELDS = ['transcript', 'segments', 'speakers', 'title', 'tags', 'created_at', 'duration_seconds'];

function isTranscriptFile(file: UploadedFile): boolean {
  const ext = path.extname(file.filename ?? '').toLowerCase();
  if (TRANSCRIPT_EXTENSIONS.has(ext)) return true;
  return /^(text\/|application\/json)/i.test(file.declaredType ?? '') && !ext;
}

/** A transcript file's content as the body of POST /v1/notes: text as `transcript`, JSON as segments or a note. */
function transcriptInput(name: string, text: string): Record<string, unknown> {
  if (path.extname(name).toLowerCase() !== '.json') return { transcript: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('parameter_invalid', `'${name}' is not valid JSON.`, { param: 'file' });
  }
  if (Array.isArray(parsed)) return { segments: parsed };
  if (parsed && typeof parsed === 'object') {
    return Object.fromEntries(Object.entries(parsed).filter(([k]) => JSON_FIELDS.includes(k)));
  }
  throw new AppError('parameter_invalid', `'${name}' must hold segments or a transcript.`, { param: 'file' });
}

/** Upload: an audio file, a transcript file or pasted text becomes a note, processed like any other. */
export function uploadRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  const maxUploadMb = Math.floor(deps.config.maxUploadBytes / 1_048_576);

  app.get('/upload', (c) => render(c, uploadPage(shellOf(c, assets.version), { maxUploadMb })));

  app.get('/upload/imports/:id', async (c) =>
    render(
      c,
      importPage(shellOf(c, assets.version), await getImport(deps, c.get('actor'), c.req.param('id'))),
    ),
  );

  app.get('/upload/imports/:id/status', async (c) => {
    const view = await getImport(deps, c.get('actor'), c.req.param('id')).catch(() => undefined);
    if (!view) return c.json({ status: 'gone' }, 404);
    return c.json(view);
  });

  app.post('/upload', async (c) => {
    const failed = (err: AppError) =>
      render(c, uploadPage(shellOf(c, assets.version), { maxUploadMb, error: err.message }), statusOf(err));
    if (!isMultipart(c.req.header('content-type'))) {
      return failed(new AppError('unsupported_media_type', 'Send the upload form as multipart/form-data.'));
    }
    let upload: Awaited<ReturnType<typeof receiveMultipart>>;
    try {
      upload = await receiveMultipart(c.req.raw, {
        dataDir: deps.config.dataDir,
        maxFileBytes: deps.config.maxUploadBytes,
      });
    } catch (err) {
      if (err instanceof AppError) return failed(err);
      throw err;
    }
    try {
      if (!csrfFieldOk(c, upload.fields)) {
        return c.text(
          'This form has expired (missing or wrong CSRF token). Reload the page and try again.',
          403,
        );
      }
      const value = (name: string) => upload.fields.find(([k]) => k === name)?.[1]?.trim() ?? '';
      if (value('what') === 'export') {
        if (!upload.file || upload.file.size === 0)
          throw new AppError('parameter_missing', 'Choose the export file to import.', { param: 'file' });
        const me = value('me').slice(0, 200);
        const started = await startImport(deps, c.get('actor'), upload.file, me ? { me } : {});
        return c.redirect(`/upload/imports/${started.id}`, 303);
      }
      const title = value('title');
      const tags = value('tags')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const file = upload.file && upload.file.size > 0 ? upload.file : undefined;
      const actor = c.get('actor');
      let accepted: { note_id: string };
      if (file && !isTranscriptFile(file)) {
        const fields: [string, string][] = [
          ...(title ? [['title', title] as [string, string]] : []),
          ...tags.map((t) => ['tags', t] as [string, string]),
        ];
        accepted = await createRecordingFromAudio(deps, actor, file, parseUploadFields(fields));
      } else {
        let input: Record<string, unknown>;
        if (file) {
          if (file.size > deps.config.maxTranscriptBytes) {
            throw new AppError(
              'payload_too_large',
              `The transcript exceeds the limit of ${deps.config.maxTranscriptBytes} bytes.`,
            );
          }
          input = transcriptInput(file.filename ?? 'transcript.txt', await fs.readFile(file.path, 'utf8'));
        } else if (value('text')) {
          input = { transcript: value('text') };
        } else {
          throw new AppError('parameter_missing', 'Choose a file or paste a transcript.', { param: 'file' });
        }
        if (title) input.title = title;
        if (tags.length) input.tags = tags;
        const parsed = CreateNoteBody.safeParse(input);
        if (!parsed.success) throw zodIssueToError(parsed.error, 'json', { value: input });
        accepted = await createRecordingFromTranscript(deps, actor, parsed.data);
      }
      return c.redirect(`/notes/${accepted.note_id}`, 303);
    } catch (err) {
      if (err instanceof AppError) return failed(err);
      throw err;
    } finally {
      if (upload.file) await removeTempFile(upload.file.path);
    }
  });
}
