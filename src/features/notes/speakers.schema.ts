import { z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { lineText } from '../../lib/schemas/fields.ts';
import { Speaker } from './notes.schema.ts';

/** Display names: 1–100 code points after trimming (API.md), one line. */
const SpeakerName = lineText(1, 100).openapi({
  type: 'string',
  minLength: 1,
  maxLength: 100,
  example: 'Maya Chen',
} as never);
const SpeakerLabel = lineText(1, 100).openapi({
  type: 'string',
  minLength: 1,
  maxLength: 100,
  example: 'Speaker 1',
} as never);

export const MAX_SPEAKER_CHANGES = 200;

/**
 * `PATCH /v1/notes/:id/speakers`: display names for labels and/or one merge of two labels. A merge is
 * applied first, then the names (so `speakers` may name the label merged into, not the one merged away).
 */
export const UpdateSpeakersBody = z
  .strictObject({
    speakers: z
      .array(z.strictObject({ label: SpeakerLabel, name: SpeakerName }))
      .min(1, 'must name at least one speaker')
      .max(MAX_SPEAKER_CHANGES, `at most ${MAX_SPEAKER_CHANGES} speakers`)
      .optional()
      .openapi({ description: 'Display names to set, by the label the transcript uses.' }),
    merge: z
      .strictObject({
        from: SpeakerLabel.openapi({ description: 'The label that goes away.', example: 'Speaker 3' }),
        into: SpeakerLabel.openapi({ description: 'The label that remains.', example: 'Speaker 1' }),
      })
      .optional()
      .openapi({ description: 'Merges two labels: every turn of `from` becomes a turn of `into`.' }),
  })
  .superRefine((b, ctx) => {
    if (b.speakers === undefined && b.merge === undefined) {
      ctx.addIssue({ code: 'custom', message: 'give at least one of speakers, merge' });
      return;
    }
    if (b.merge && b.merge.from === b.merge.into) {
      ctx.addIssue({ code: 'custom', path: ['merge', 'into'], message: 'must differ from merge.from' });
    }
    const seen = new Set<string>();
    for (const [i, s] of (b.speakers ?? []).entries()) {
      if (seen.has(s.label)) {
        ctx.addIssue({
          code: 'custom',
          path: ['speakers', i, 'label'],
          message: `names the label '${s.label}' a second time`,
        });
      }
      seen.add(s.label);
    }
  })
  .openapi('UpdateSpeakers', {
    example: {
      speakers: [{ label: 'Speaker 1', name: 'Maya Chen' }],
      merge: { from: 'Speaker 3', into: 'Speaker 2' },
    },
  });

export const UpdateSpeakersResponse = z
  .object({ id: z.string(), speakers: z.array(Speaker) })
  .openapi('UpdatedSpeakers', {
    example: {
      id: EXAMPLE.noteId,
      speakers: [
        { label: 'Speaker 1', name: 'Maya Chen' },
        { label: 'Speaker 2', name: 'Daniel Okafor' },
      ],
    },
  });

export type UpdateSpeakersInput = z.infer<typeof UpdateSpeakersBody>;
