import { z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { plainWords } from '../../lib/schemas/fields.ts';
import { SearchBody } from '../search/search.schema.ts';

const EXAMPLE_ANSWER = {
  answered: true,
  answer: 'Speaker 1: The budget was exceeded by twelve percent, mostly on contractors. [1]',
  mode: 'extractive' as const,
  citations: [
    {
      note_id: EXAMPLE.noteId,
      title: 'Q3 planning',
      created_at: EXAMPLE.recordedAt,
      quote: 'The budget was exceeded by twelve percent, mostly on contractors.',
      speaker: 'Speaker 1',
      start_ms: 754_000,
      end_ms: 759_500,
    },
  ],
};

/** The body of POST /v1/ask (inline, like the search body, so defaults read as optional). */
export const AskBody = z.strictObject({
  question: plainWords({
    description:
      'The question, in plain words: "What did Anna decide about pricing?", "Summarize the budget discussion".',
    example: 'What did we decide about the contractors budget?',
  }),
  note_id: z.string().max(100, 'must be at most 100 characters').optional().openapi({
    description:
      'Ask this note only. Without it, the whole data space (within `from`, `to` and `tag`) is asked.',
    example: EXAMPLE.noteId,
  }),
  from: SearchBody.shape.from,
  to: SearchBody.shape.to,
  tag: SearchBody.shape.tag,
  max_citations: z
    .number()
    .int('must be an integer')
    .min(1, 'must be between 1 and 20')
    .max(20, 'must be between 1 and 20')
    .default(8)
    .openapi({ description: 'Most citations (and so answer sentences) returned.', example: 8 }),
});

export const AskCitation = z
  .object({
    note_id: z.string().openapi({ example: EXAMPLE.noteId }),
    title: z.string(),
    created_at: z.string().openapi({ format: 'date-time' }),
    quote: z.string().openapi({
      description: "Verbatim from the note's transcript (after whitespace normalisation).",
    }),
    speaker: z.string().optional(),
    start_ms: z
      .number()
      .int()
      .min(0)
      .optional()
      .openapi({ description: 'Where the quoted turn starts in the recording.' }),
    end_ms: z.number().int().min(0).optional(),
  })
  .openapi('AskCitation');

export const AskResponse = z
  .object({
    answered: z
      .boolean()
      .openapi({ description: 'False when the notes hold nothing that answers the question.' }),
    answer: z.string().openapi({
      description:
        'The answer; each `[n]` refers to `citations[n-1]`. One sentence saying so when not answered.',
    }),
    mode: z.enum(['extractive', 'generative']),
    citations: z.array(AskCitation),
  })
  .openapi('AskResponse', { example: EXAMPLE_ANSWER });

export type AskInput = z.infer<typeof AskBody>;
export type AskResult = z.infer<typeof AskResponse>;
