import { z } from 'zod';
import { exportNote } from '../../notes/export/export.service.ts';
import { getNote } from '../../notes/notes.service.ts';
import { SearchBody } from '../../search/search.schema.ts';
import { searchNotes } from '../../search/search.service.ts';
import { parseOrThrow } from '../mcp.schema.ts';
import { noteIdArg } from './notes.tools.ts';
import { defineTool, READ_ONLY, type ToolContext } from './tool.ts';

/** Where a note opens in the dashboard: this server's address as the client reached it (PUBLIC_URL when set). */
function noteUrl(ctx: ToolContext, id: string): string {
  const base = ctx.deps.config.publicUrl?.replace(/\/+$/, '') ?? ctx.baseUrl ?? '';
  return `${base}/notes/${encodeURIComponent(id)}`;
}

/**
 * `search` in the shape ChatGPT's connectors and deep research call: `{query}` → `{results: [{id, title, url}]}`,
 * over the same search as search_notes.
 */
export const connectorSearchTool = defineTool({
  name: 'search',
  title: 'Search meeting notes',
  description:
    "Searches the user's meeting notes by meaning and keywords and returns matching notes (id, title, url), most " +
    'relevant first. Read one with fetch (or get_note). For dates, tags or relevance scores use search_notes.',
  scope: 'search',
  input: z.strictObject({
    query: z
      .string()
      .meta({ minLength: 1, maxLength: 1000 })
      .describe('What to look for, in plain words, up to 1000 characters.'),
  }),
  output: z.object({
    results: z.array(
      z.object({
        id: z.string().describe('The note id (note_…), for fetch.'),
        title: z.string(),
        url: z.string().describe('Opens the note in the Minutes dashboard.'),
      }),
    ),
  }),
  annotations: READ_ONLY,
  notFoundHint: 'search takes no ids; an empty result list means nothing relevant was found.',
  run: async (ctx, args) => {
    const found = await searchNotes(ctx.deps, ctx.actor, parseOrThrow(SearchBody, { query: args.query }));
    return {
      results: found.results.map((r) => ({ id: r.note_id, title: r.title, url: noteUrl(ctx, r.note_id) })),
    };
  },
});

/**
 * `fetch` in the shape ChatGPT's connectors and deep research call: `{id}` → `{id, title, text, url, metadata}`;
 * `text` is the note as plain text (summary, action items, highlights, transcript), as the txt export.
 */
export const connectorFetchTool = defineTool({
  name: 'fetch',
  title: 'Fetch a meeting note',
  description:
    'Returns one note as plain text (summary, action items, highlights and the transcript with speaker names), ' +
    'with its title, dashboard url and metadata (date, duration, tags, status). Ids come from search.',
  scope: 'notes:read',
  input: z.strictObject({ id: noteIdArg }),
  output: z.object({
    id: z.string(),
    title: z.string(),
    text: z.string(),
    url: z.string(),
    metadata: z.record(z.string(), z.string()),
  }),
  annotations: READ_ONLY,
  notFoundHint:
    'Find valid note ids (note_…) with search or list_notes. Live and test data are separate, so ids never ' +
    'carry over between them.',
  tooLargeHint: 'Read the note in parts instead: get_note for the summary, get_transcript page by page.',
  run: async (ctx, args) => {
    const note = await getNote(ctx.deps, ctx.actor, args.id);
    const file = await exportNote(ctx.deps, ctx.actor, { id: args.id, format: 'txt' });
    return {
      id: note.id,
      title: note.title,
      text: file.body,
      url: noteUrl(ctx, note.id),
      metadata: {
        created_at: note.created_at,
        duration_seconds: String(note.duration_seconds),
        tags: note.tags.join(', '),
        status: note.status,
      },
    };
  },
});
