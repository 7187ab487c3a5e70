import { z } from '@hono/zod-openapi';
import { fileFormField } from '../../http/schemas.ts';

const EXAMPLE_IMPORT_ID = 'imp_3kTMd9Qw0aZr8XbY2cVn5LpE';

export const ImportUpload = z
  .object({
    file: fileFormField(
      'The export: a Limitless export ZIP (`lifelogs/*.md`), an Omi export (JSON: "Export All Data" or an array of conversations), or a Minutes account export (ZIP of `minutes export --all`).',
    ),
    me: z.string().optional().openapi({
      description: "The wearer's name, given to the speaker the source marks as the recorder's owner.",
      example: 'Sam',
    }),
  })
  .openapi('ImportUpload');

export const Import = z
  .object({
    id: z.string().openapi({ example: EXAMPLE_IMPORT_ID }),
    status: z.enum(['running', 'completed', 'failed']).openapi({
      description:
        '`failed` when the export as a whole could not be read (not a readable archive, a newer format) or the import stopped; items that failed alone leave it `completed`.',
    }),
    source: z.string().nullable().openapi({
      description: 'limitless, omi or minutes; null until the first item is read.',
      example: 'limitless',
    }),
    total: z.number().int().openapi({
      description: 'Items of the export: estimated from the archive while running, exact once finished.',
      example: 120,
    }),
    imported: z.number().int().openapi({ example: 117 }),
    skipped: z
      .number()
      .int()
      .openapi({ description: 'Items imported before (same source and id).', example: 2 }),
    failed: z.number().int().openapi({ example: 1 }),
    errors: z
      .array(z.object({ item: z.string(), message: z.string() }))
      .openapi({ description: 'The items that failed, each named (the first 1000).' }),
    created_at: z.string().openapi({ example: '2026-03-01T09:00:00.000Z' }),
    finished_at: z.string().optional().openapi({ example: '2026-03-01T09:02:10.000Z' }),
  })
  .openapi('Import', {
    example: {
      id: EXAMPLE_IMPORT_ID,
      status: 'completed',
      source: 'limitless',
      total: 120,
      imported: 117,
      skipped: 2,
      failed: 1,
      errors: [{ item: 'lifelogs/2025-10-09_14h30m00s_Coffee-order.md', message: 'not valid UTF-8' }],
      created_at: '2026-03-01T09:00:00.000Z',
      finished_at: '2026-03-01T09:02:10.000Z',
    },
  });

export const ImportIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_IMPORT_ID }),
});
