import { z } from 'zod';
import { AskBody, AskResponse } from '../../ask/ask.schema.ts';
import { askNotes } from '../../ask/ask.service.ts';
import { defined, parseOrThrow } from '../mcp.schema.ts';
import { dateBound, tagFilter } from './notes.tools.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export const askNotesTool = defineTool({
  name: 'ask_notes',
  title: 'Ask the notes',
  description:
    'Answers a question from the user\'s meetings with citations: "What did Anna decide about pricing?", ' +
    '"Summarize the discussion about hiring". Every `[n]` in `answer` refers to `citations[n-1]`, a verbatim ' +
    'quote with its note, speaker and `start_ms` (read around it with get_transcript). `answered: false` means ' +
    'the notes hold nothing relevant. Give `note_id` to ask one note.',
  scope: 'search',
  input: z.strictObject({
    question: z
      .string()
      .meta({ minLength: 1, maxLength: 1000 })
      .describe('The question, in plain words, up to 1000 characters.'),
    note_id: z.string().optional().describe('Ask this note only (an id from search_notes or list_notes).'),
    from: dateBound('from'),
    to: dateBound('to'),
    tag: tagFilter(),
    max_citations: z
      .number()
      .int('must be an integer')
      .min(1, 'must be between 1 and 20')
      .max(20, 'must be between 1 and 20')
      .optional()
      .describe('Most citations to return, 1–20. Default 8.'),
  }),
  output: AskResponse,
  annotations: READ_ONLY,
  notFoundHint: 'note_id must be an id from search_notes or list_notes.',
  run: ({ deps, actor }, args) => askNotes(deps, actor, parseOrThrow(AskBody, defined(args))),
});
