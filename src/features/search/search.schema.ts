import { z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { plainWords, rangeBound } from '../../lib/schemas/fields.ts';
import { MAX_SNIPPET } from './snippet.ts';

/** A result for the query "spending went over plan": the document's example note (see EXAMPLE). */
const EXAMPLE_RESULT = {
  note_id: EXAMPLE.noteId,
  title: 'Q3 planning',
  snippet: 'Speaker 1: The budget was exceeded by twelve percent, mostly on contractors.',
  relevance: 0.83,
  created_at: EXAMPLE.recordedAt,
  matched_at_ms: 754_000,
};

/** Bounds like `rangeBound`, for a JSON body field: a date (whole UTC day) or a date-time with offset. */
const bodyBound = (edge: 'from' | 'to') =>
  rangeBound(edge).openapi({
    type: 'string',
    description:
      edge === 'from'
        ? "Created at or after (a bare date: from that day's start, UTC)."
        : 'Created at or before (a bare date: through that whole UTC day).',
    example: edge === 'from' ? '2026-01-05' : '2026-02-28T18:00:00Z',
  } as never);

/**
 * The body of POST /v1/search. Deliberately not a named component: inline in the request body, openapi-typescript
 * reads fields with a default as optional (in a shared component it makes them required, as for a response).
 */
export const SearchBody = z.strictObject({
  query: plainWords({
    description: 'What to look for, in plain words; matched by meaning and by keywords.',
    example: 'spending went over plan',
  }),
  limit: z
    .number()
    .int('must be an integer')
    .min(1, 'must be between 1 and 50')
    .max(50, 'must be between 1 and 50')
    .default(10)
    .openapi({ description: 'Most results returned (one per note).', example: 10 }),
  from: bodyBound('from'),
  to: bodyBound('to'),
  tag: z.string().max(200, 'must be at most 200 characters').optional().openapi({
    description: 'Only notes with this exact tag (case-insensitive).',
    example: 'weekly',
  }),
  min_relevance: z
    .number()
    .min(0, 'must be between 0 and 1')
    .max(1, 'must be between 0 and 1')
    .default(0.5)
    .openapi({
      description:
        'Leave out results below this relevance. 0.5 is calibrated as the line between relevant and not.',
      example: 0.5,
    }),
});

export const SearchResultItem = z
  .object({
    note_id: z.string().openapi({ example: EXAMPLE.noteId }),
    title: z.string(),
    snippet: z.string().max(MAX_SNIPPET).openapi({
      description:
        'The most relevant excerpt of the note (≤ 300 characters, cut at word boundaries), containing query terms when the match was lexical.',
      example: EXAMPLE_RESULT.snippet,
    }),
    relevance: z.number().min(0).max(1).openapi({
      description:
        'Calibrated to [0, 1]: 0.5 and above means relevant. A note containing the query’s rare words verbatim scores at least 0.5.',
      example: 0.83,
    }),
    created_at: z.string().openapi({ format: 'date-time' }),
    matched_at_ms: z.number().int().min(0).optional().openapi({
      description: 'Where the snippet starts in the recording, when it comes from the transcript.',
      example: 754000,
    }),
  })
  .openapi('SearchResult', { example: EXAMPLE_RESULT });

export const SearchResponse = z
  .object({ results: z.array(SearchResultItem) })
  .openapi('SearchResponse', { example: { results: [EXAMPLE_RESULT] } });

export type SearchBodyInput = z.infer<typeof SearchBody>;
