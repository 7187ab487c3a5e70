import { z } from 'zod';
import { exportNote } from '../../notes/export/export.service.ts';
import { EXPORT_FORMATS } from '../../notes/export/export-formats.ts';
import { noteIdArg } from './notes.tools.ts';
import { defineTool, READ_ONLY } from './tool.ts';

/** The MCP side of `GET /v1/notes/:id/export`: the file's text in the result. */
export const getNoteExportTool = defineTool({
  name: 'get_note_export',
  title: 'Export a note as a file',
  description:
    'Returns one note as the text of a file: Markdown with YAML front matter (title, date, tags, speakers; ' +
    'summary, action items as checkboxes, highlights, transcript) by default, or plain text, SRT or WebVTT ' +
    'subtitles, or JSON. Use it when the user wants to save, share or paste a note elsewhere (Obsidian, a wiki, ' +
    'a subtitle player). `file_name` is the suggested name.',
  scope: 'notes:read',
  input: z.strictObject({
    note_id: noteIdArg,
    format: z
      .enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` })
      .optional()
      .describe('md (default), txt, srt, vtt or json.'),
  }),
  output: z.object({
    note_id: z.string(),
    format: z.enum(EXPORT_FORMATS),
    file_name: z.string().describe('Suggested file name: "YYYY-MM-DD Title.<ext>".'),
    content_type: z.string(),
    content: z.string().describe('The file text.'),
  }),
  annotations: READ_ONLY,
  notFoundHint:
    'Find valid note ids (note_…) with list_notes or search_notes. A live key and a test key see separate data, ' +
    'so ids never carry over between them.',
  run: async ({ deps, actor }, args) => {
    const format = args.format ?? 'md';
    const file = await exportNote(deps, actor, { id: args.note_id, format });
    return {
      note_id: file.noteId,
      format,
      file_name: file.fileName,
      content_type: file.contentType,
      content: file.body,
    };
  },
});
