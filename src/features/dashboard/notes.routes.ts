import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { type NotesQuery, notePage, notesPage } from '../../../web/pages/notes.pages.ts';
import type { Deps } from '../../deps.ts';
import { zodIssueToError } from '../../http/validation.ts';
import { AppError } from '../../lib/errors.ts';
import { UpdateActionItemBody } from '../action-items/action-items.schema.ts';
import { updateActionItem } from '../action-items/action-items.service.ts';
import { AskBody } from '../ask/ask.schema.ts';
import { askNotes } from '../ask/ask.service.ts';
import { ListNotesQuery, UpdateNoteBody } from '../notes/notes.schema.ts';
import { deleteNote, getNote, listNotes, updateNote } from '../notes/notes.service.ts';
import { UpdateSpeakersBody } from '../notes/speakers.schema.ts';
import { updateSpeakers } from '../notes/speakers.service.ts';
import { audioResponseHeaders } from '../recordings/audio-headers.ts';
import { getRecording, readRecordingAudio } from '../recordings/recordings.service.ts';
import { SearchBody } from '../search/search.schema.ts';
import { searchNotes } from '../search/search.service.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { act, field, keepFlash, localPath, render, shellOf, statusOf } from './respond.ts';

export const NOTES_PER_PAGE = 20;

/**
 * Notes (list, filters, "Search notes"), a note (edit, rename speaker, action items, audio, delete) and its
 * status.
 */
export function notesRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  app.get('/', async (c) => {
    const q = c.req.query('q')?.trim() || undefined;
    const ask = c.req.query('ask')?.trim() || undefined;
    const tag = c.req.query('tag')?.trim() || undefined;
    const from = c.req.query('from') || undefined;
    const to = c.req.query('to') || undefined;
    const pageParam = Number(c.req.query('page') ?? '1');
    const query: NotesQuery = {
      page: Number.isInteger(pageParam) && pageParam > 0 ? pageParam : 1,
      ...(q ? { q } : {}),
      ...(ask ? { ask } : {}),
      ...(tag ? { tag } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    };
    const shell = shellOf(c, assets.version);
    const actor = c.get('actor');
    try {
      if (ask) {
        const parsed = AskBody.safeParse({
          question: ask,
          ...(tag ? { tag } : {}),
          ...(from ? { from } : {}),
          ...(to ? { to } : {}),
        });
        if (!parsed.success) throw zodIssueToError(parsed.error);
        return render(c, notesPage(shell, { query, answer: await askNotes(deps, actor, parsed.data) }));
      }
      if (q) {
        const parsed = SearchBody.safeParse({
          query: q,
          limit: 20,
          ...(tag ? { tag } : {}),
          ...(from ? { from } : {}),
          ...(to ? { to } : {}),
        });
        if (!parsed.success) throw zodIssueToError(parsed.error);
        const found = await searchNotes(deps, actor, parsed.data);
        return render(c, notesPage(shell, { query, results: found.results }));
      }
      const parsed = ListNotesQuery.safeParse({
        page: String(query.page),
        per_page: String(NOTES_PER_PAGE),
        ...(tag ? { tag } : {}),
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
      });
      if (!parsed.success) throw zodIssueToError(parsed.error);
      const list = await listNotes(deps, actor, parsed.data);
      return render(
        c,
        notesPage(shell, {
          query,
          notes: { items: list.data, total: list.meta.total, perPage: NOTES_PER_PAGE },
        }),
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return render(c, notesPage(shell, { query, error: err.message }), statusOf(err));
    }
  });

  app.get('/notes/:id', async (c) => {
    try {
      const actor = c.get('actor');
      const note = await getNote(deps, actor, c.req.param('id'), { segments: true });
      // A recording made from a transcript has no audio to play.
      const recording = note.recording_id ? await getRecording(deps, actor, note.recording_id) : undefined;
      const hasAudio = !!recording?.content_type.startsWith('audio/');
      return render(c, notePage(shellOf(c, assets.version), note, { hasAudio }));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      keepFlash(c);
      return c.redirect('/?missing=1', 303);
    }
  });

  /** What the page polls while a note is processing. */
  app.get('/notes/:id/status', async (c) => {
    const note = await getNote(deps, c.get('actor'), c.req.param('id')).catch(() => undefined);
    if (!note) return c.json({ status: 'deleted' }, 404);
    return c.json({
      status: note.status,
      ...(note.failure_reason ? { failure_reason: note.failure_reason } : {}),
    });
  });

  app.get('/notes/:id/audio', async (c) => {
    const actor = c.get('actor');
    const note = await getNote(deps, actor, c.req.param('id')).catch(() => undefined);
    if (!note?.recording_id) return c.text('No recording.', 404);
    let audio: Awaited<ReturnType<typeof readRecordingAudio>>;
    try {
      audio = await readRecordingAudio(deps, actor, note.recording_id, {
        range: c.req.header('range'),
        ifRange: c.req.header('if-range'),
      });
    } catch (err) {
      if (err instanceof AppError) return c.text(err.message, statusOf(err) as 404);
      throw err;
    }
    if (audio.kind === 'unsatisfiable') {
      return c.body(null, 416, { 'Content-Range': `bytes */${audio.size}`, 'Accept-Ranges': 'bytes' });
    }
    const headers = audioResponseHeaders(audio);
    if (c.req.method === 'HEAD') return c.body(null, audio.status, headers);
    const stream = Readable.toWeb(await audio.open()) as unknown as ReadableStream<Uint8Array>;
    return c.body(stream, audio.status, headers);
  });

  app.post('/notes/:id', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody({ all: true });
    return act(c, `/notes/${id}`, async () => {
      const tags = field(form, 'tags')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const parsed = UpdateNoteBody.safeParse({ title: field(form, 'title').trim(), tags });
      if (!parsed.success) throw zodIssueToError(parsed.error);
      const actor = c.get('actor');
      await updateNote(deps, actor, id, parsed.data);
      return { ok: 'Saved.' };
    });
  });

  /** "Rename speaker": one label's new display name; the transcript, speakers and assignees follow. */
  app.post('/notes/:id/speakers', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody({ all: true });
    return act(c, `/notes/${id}`, async () => {
      const label = field(form, 'label');
      const parsed = UpdateSpeakersBody.safeParse({ speakers: [{ label, name: field(form, 'name') }] });
      if (!parsed.success) throw zodIssueToError(parsed.error);
      const { speakers } = await updateSpeakers(deps, c.get('actor'), id, parsed.data);
      const name = speakers.find((s) => s.label === label)?.name ?? label;
      return { ok: `${label} is now shown as ${name}.` };
    });
  });

  app.post('/notes/:id/delete', async (c) => {
    const id = c.req.param('id');
    const actor = c.get('actor');
    return act(c, `/notes/${id}`, async () => {
      await deleteNote(deps, actor, id);
      return { to: '/', ok: 'The note was deleted.' };
    });
  });

  app.post('/action-items/:id', async (c) => {
    const form = await c.req.parseBody({ all: true });
    const back = localPath(field(form, 'back'), '/action-items');
    return act(c, back, async () => {
      const input =
        field(form, 'edit') === '1'
          ? {
              text: field(form, 'text'),
              assignee: field(form, 'assignee').trim() || null,
              due: field(form, 'due') || null,
            }
          : { status: field(form, 'status') };
      const parsed = UpdateActionItemBody.safeParse(input);
      if (!parsed.success) throw zodIssueToError(parsed.error);
      await updateActionItem(deps, c.get('actor'), c.req.param('id'), parsed.data);
      return field(form, 'edit') === '1' ? { ok: 'Action item saved.' } : undefined;
    });
  });
}
