import { z } from 'zod';
import { SearchBody, SearchResponse } from '../../search/search.schema.ts';
import { searchNotes } from '../../search/search.service.ts';
import { defined, parseOrThrow } from '../mcp.schema.ts';
import { dateBound, tagFilter } from './notes.tools.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export const searchNotesTool = defineTool({
  name: 'search_notes',
  title: 'Search notes',
  description:
    'Searches the user\'s meetings by meaning and by keywords: "spending went over plan" finds a note that says ' +
    '"the budget was exceeded". Returns one result per note, most relevant first, each with title, date, the ' +
    'best-matching excerpt (`snippet`) and a `relevance` from 0 to 1 (0.5 and above means relevant; weaker ' +
    'matches are left out, so an empty list means nothing relevant was found). `matched_at_ms` tells where in ' +
    'the recording the excerpt is: read around it with get_transcript, or the whole note with get_note.',
  scope: 'search',
  input: z.strictObject({
    query: z
      .string()
      .meta({ minLength: 1, maxLength: 1000 })
      .describe('What to look for, in plain words (a question, a topic, a phrase), up to 1000 characters.'),
    limit: z
      .number()
      .int('must be an integer')
      .min(1, 'must be between 1 and 50')
      .max(50, 'must be between 1 and 50')
      .optional()
      .describe('Most results to return, 1–50. Default 10.'),
    from: dateBound('from'),
    to: dateBound('to'),
    tag: tagFilter(),
    min_relevance: z
      .number()
      .min(0, 'must be between 0 and 1')
      .max(1, 'must be between 0 and 1')
      .optional()
      .describe('Leave out results below this relevance, 0–1. Default 0.5; lower it to see weaker matches.'),
  }),
  output: SearchResponse,
  annotations: READ_ONLY,
  notFoundHint: 'search_notes takes no ids; an empty result list means nothing relevant was found.',
  run: ({ deps, actor }, args) => searchNotes(deps, actor, parseOrThrow(SearchBody, defined(args))),
});
