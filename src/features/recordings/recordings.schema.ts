import { z } from '@hono/zod-openapi';
import { PageQuery, rangeBound } from '../../http/schemas.ts';

/** A recording: what was ingested for a note (an audio file, or a transcript given as text). */
export const Recording = z
  .object({
    id: z.string().openapi({ example: 'rec_5Tq8Lm2Zx9Kb4Vn7Yc1Rp3Wd' }),
    note_id: z.string().openapi({ example: 'note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W' }),
    content_type: z.string().openapi({
      description:
        'Sniffed from the bytes for audio (`audio/wav`, `audio/mpeg`, `audio/mp4`, `audio/ogg`, `audio/webm`, ' +
        '`audio/flac`); `text/plain`, `text/vtt`, `application/x-subrip` or `application/json` (segments) for a ' +
        'recording made from a transcript, which has no audio.',
      example: 'audio/mpeg',
    }),
    size_bytes: z.number().int().openapi({ example: 4_718_592 }),
    duration_seconds: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Measured from the audio itself; omitted when it cannot be.', example: 1805 }),
    created_at: z.string().openapi({ format: 'date-time', example: '2026-11-20T14:00:00.000Z' }),
  })
  .openapi('Recording');

export const RecordingList = z
  .object({
    data: z.array(Recording),
    meta: z.object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int() }),
  })
  .openapi('RecordingList');

export const RecordingAccepted = z
  .object({
    recording_id: z.string().openapi({ example: 'rec_5Tq8Lm2Zx9Kb4Vn7Yc1Rp3Wd' }),
    note_id: z.string().openapi({ example: 'note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W' }),
    status: z.literal('processing'),
  })
  .openapi('RecordingAccepted');

/** The multipart form of an audio upload: documentation only (the body is streamed, not parsed by zod). */
export const RecordingUpload = z
  .object({
    file: z.string().openapi({
      type: 'string',
      format: 'binary',
      description:
        'The audio: wav, mp3, m4a, ogg/opus, webm or flac, up to MAX_UPLOAD_BYTES (500 MB by default). The format ' +
        'is recognised from the bytes; a file of another format is a 415, a corrupt one a 400.',
    } as never),
    title: z
      .string()
      .optional()
      .openapi({ description: '1–200 characters; processing keeps it.', example: 'Weekly sync' }),
    created_at: z.string().optional().openapi({
      format: 'date-time',
      description:
        'When it was recorded (ISO 8601 with time zone); now by default. Due dates resolve from it.',
      example: '2026-11-20T14:00:00Z',
    }),
    tags: z
      .array(z.string())
      .optional()
      .openapi({
        description:
          'Repeat the field once per tag (`-F tags=weekly -F tags=product`), or send one JSON array.',
        example: ['weekly'],
      }),
  })
  .openapi('RecordingUpload');

export const RecordingIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'rec_5Tq8Lm2Zx9Kb4Vn7Yc1Rp3Wd' }),
});

export const ListRecordingsQuery = z.object({
  ...PageQuery,
  from: rangeBound('from'),
  to: rangeBound('to'),
});

export type ListRecordingsInput = z.infer<typeof ListRecordingsQuery>;
