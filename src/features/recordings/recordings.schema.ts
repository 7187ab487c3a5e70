import { z } from '@hono/zod-openapi';
import { fileFormField } from '../../http/schemas.ts';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { Meta, PageQuery, rangeBound } from '../../lib/schemas/fields.ts';

/** The recording of the document's example note (see EXAMPLE): 30 minutes of MP3 at 128 kbit/s. */
const EXAMPLE_RECORDING = {
  id: EXAMPLE.recordingId,
  note_id: EXAMPLE.noteId,
  content_type: 'audio/mpeg',
  size_bytes: 28_880_417,
  duration_seconds: 1805,
  created_at: EXAMPLE.recordedAt,
};

/** A recording: what was ingested for a note (an audio file, or a transcript given as text). */
export const Recording = z
  .object({
    id: z.string().openapi({ example: EXAMPLE.recordingId }),
    note_id: z.string().openapi({ example: EXAMPLE.noteId }),
    content_type: z.string().openapi({
      description:
        'Sniffed from the bytes for audio (`audio/wav`, `audio/mpeg`, `audio/mp4`, `audio/ogg`, `audio/webm`, ' +
        '`audio/flac`); `text/plain`, `text/vtt`, `application/x-subrip` or `application/json` (segments) for a ' +
        'recording made from a transcript, which has no audio.',
      example: 'audio/mpeg',
    }),
    size_bytes: z.number().int().openapi({ example: EXAMPLE_RECORDING.size_bytes }),
    duration_seconds: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Measured from the audio itself; omitted when it cannot be.', example: 1805 }),
    created_at: z.string().openapi({ format: 'date-time', example: EXAMPLE.recordedAt }),
    language: z.string().optional().openapi({ description: 'The language given with the upload (BCP 47).' }),
  })
  .openapi('Recording', { example: EXAMPLE_RECORDING });

export const RecordingList = z
  .object({
    data: z.array(Recording),
    meta: Meta,
  })
  .openapi('RecordingList', {
    example: { data: [EXAMPLE_RECORDING], meta: { page: 1, per_page: 20, total: 1 } },
  });

export const RecordingAccepted = z
  .object({
    recording_id: z.string().openapi({ example: EXAMPLE.recordingId }),
    note_id: z.string().openapi({ example: EXAMPLE.noteId }),
    status: z.literal('processing'),
  })
  .openapi('RecordingAccepted', {
    example: { recording_id: EXAMPLE.recordingId, note_id: EXAMPLE.noteId, status: 'processing' },
  });

/** The multipart form of an audio upload: documentation only (the body is streamed, not parsed by zod). */
export const RecordingUpload = z
  .object({
    file: fileFormField(
      'The audio: wav, mp3, m4a, ogg/opus, webm or flac, up to MAX_UPLOAD_BYTES (500 MB by default). The format ' +
        'is recognised from the bytes; a file of another format is a 415, a corrupt one a 400.',
    ),
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
    language: z.string().optional().openapi({
      description:
        'The language spoken (BCP 47, e.g. `de-CH`): the transcriber is told it, and a language model writes the notes in it.',
      example: 'de-CH',
    }),
  })
  .openapi('RecordingUpload');

export const RecordingIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE.recordingId }),
});

export const ListRecordingsQuery = z.object({
  ...PageQuery,
  from: rangeBound('from'),
  to: rangeBound('to'),
});

export type ListRecordingsInput = z.infer<typeof ListRecordingsQuery>;
