import fsp from 'node:fs/promises';
import { parseFile } from 'music-metadata';
import { AppError } from '../../lib/errors.ts';

/** The audio formats accepted for upload, recognised by their first bytes (never by name or declared type). */
export const AUDIO_FORMATS = {
  wav: { contentType: 'audio/wav', extension: '.wav', name: 'WAV' },
  mp3: { contentType: 'audio/mpeg', extension: '.mp3', name: 'MP3' },
  m4a: { contentType: 'audio/mp4', extension: '.m4a', name: 'M4A/MP4' },
  ogg: { contentType: 'audio/ogg', extension: '.ogg', name: 'Ogg (Opus or Vorbis)' },
  webm: { contentType: 'audio/webm', extension: '.webm', name: 'WebM' },
  flac: { contentType: 'audio/flac', extension: '.flac', name: 'FLAC' },
} as const;

export type AudioFormat = keyof typeof AUDIO_FORMATS;

export interface ProbedAudio {
  format: AudioFormat;
  contentType: string;
  extension: string;
  /** Whole seconds, rounded (at least 1 for any sound); undefined when it cannot be measured. */
  durationSeconds?: number;
}

const SUPPORTED = 'wav, mp3, m4a, ogg/opus, webm or flac';
const ascii = (bytes: Buffer, start: number, end: number) => bytes.toString('latin1', start, end);

/** The family of the file by its magic bytes; undefined when it is none of the accepted ones. */
export function sniffAudioFormat(head: Buffer): AudioFormat | 'id3' | undefined {
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WAVE') return 'wav';
  if (ascii(head, 0, 4) === 'fLaC') return 'flac';
  if (ascii(head, 0, 4) === 'OggS') return 'ogg';
  if (head.readUInt32BE(0) === 0x1a45dfa3) return 'webm';
  if (ascii(head, 4, 8) === 'ftyp') return 'm4a';
  // An ID3v2 tag can precede MP3 (usually) or FLAC; the parser tells which.
  if (ascii(head, 0, 3) === 'ID3') return 'id3';
  // An MPEG audio frame header: 11 sync bits, then a version other than "reserved" and layer III.
  const b0 = head[0] ?? 0;
  const b1 = head[1] ?? 0;
  if (b0 === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x18) !== 0x08 && (b1 & 0x06) === 0x02) return 'mp3';
  return undefined;
}

/** music-metadata's container name → our format, for files that start with an ID3 tag. */
function formatOfContainer(container: string | undefined): AudioFormat | undefined {
  if (!container) return undefined;
  if (/^MPEG/i.test(container)) return 'mp3';
  if (/^FLAC/i.test(container)) return 'flac';
  return undefined;
}

/**
 * Checks that a file is audio of an accepted format and measures its duration from the audio itself.
 * 415 `unsupported_media_type` when it is no accepted format, 400 `parameter_invalid` when it claims to be one
 * but cannot be read (corrupt, truncated, no audio stream). Messages never include paths or parser internals.
 */
export async function probeAudio(file: string): Promise<ProbedAudio> {
  const head = Buffer.alloc(16);
  const handle = await fsp.open(file, 'r');
  let read: number;
  try {
    ({ bytesRead: read } = await handle.read(head, 0, head.length, 0));
  } finally {
    await handle.close();
  }
  if (read === 0) {
    throw new AppError('parameter_invalid', 'The uploaded file is empty.', { param: 'file' });
  }
  const sniffed = read >= 12 ? sniffAudioFormat(head) : undefined;
  if (!sniffed) {
    throw new AppError(
      'unsupported_media_type',
      `The uploaded file is not audio in a supported format (${SUPPORTED}).`,
      { param: 'file' },
    );
  }

  let metadata: Awaited<ReturnType<typeof parseFile>> | undefined;
  try {
    metadata = await parseFile(file, { duration: true, skipCovers: true });
  } catch {
    metadata = undefined;
  }
  const format = sniffed === 'id3' ? formatOfContainer(metadata?.format.container) : sniffed;
  if (!format) {
    throw new AppError(
      'unsupported_media_type',
      `The uploaded file is not audio in a supported format (${SUPPORTED}).`,
      { param: 'file' },
    );
  }
  const info = metadata?.format;
  const hasAudio =
    info !== undefined &&
    info.hasAudio !== false &&
    (info.codec !== undefined || info.sampleRate !== undefined || info.numberOfChannels !== undefined);
  if (!hasAudio) {
    throw new AppError(
      'parameter_invalid',
      `The uploaded file looks like ${AUDIO_FORMATS[format].name} but could not be read as audio: it is corrupt, truncated or has no audio stream.`,
      { param: 'file' },
    );
  }
  const seconds = info.duration;
  return {
    format,
    contentType: AUDIO_FORMATS[format].contentType,
    extension: AUDIO_FORMATS[format].extension,
    ...(seconds !== undefined && Number.isFinite(seconds) && seconds >= 0
      ? { durationSeconds: seconds > 0 ? Math.max(1, Math.round(seconds)) : 0 }
      : {}),
  };
}
