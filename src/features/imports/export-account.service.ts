import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Mode } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { nowIso } from '../../lib/time.ts';
import { accountExportRepo } from './account-export.repo.ts';
import { copyHashed } from './hashed-copy.ts';
import {
  ACCOUNT_EXPORT_FORMAT,
  ACCOUNT_EXPORT_VERSION,
  type ExportedNote,
  type ExportedRecording,
  type ExportManifest,
} from './sources/minutes-export.ts';

const PAGE = 200;
/** Export files hold transcripts: readable by their owner only. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export interface ExportAccountOptions {
  accountId: string;
  /** Called after each note written (drives the progress bar). */
  onNote?: (written: number) => void;
}

/**
 * `minutes export --all`: writes an account's notes to `dir`, one folder per data space (`live/notes/<id>.json`,
 * `test/notes/<id>.json`), each note with every field (ids, status, summary, transcript, segments, speakers,
 * highlights, action items with status and completion, tags, times, source, its recording) and the recording's
 * audio beside it (`<recording id>.<ext>`, streamed, its size and SHA-256 in the note file), then
 * `manifest.json` with the format version. Notes are read and written one at a time, so memory stays flat
 * whatever the account's size; the manifest is written last, so a folder without one is an export that did not
 * finish.
 */
export async function exportAccount(
  deps: Deps,
  dir: string,
  options: ExportAccountOptions,
): Promise<ExportManifest> {
  await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
  await fsp.rm(path.join(dir, 'manifest.json'), { force: true });
  const spaces: ExportManifest['spaces'] = [];
  let written = 0;
  for (const mode of ['live', 'test'] as const satisfies readonly Mode[]) {
    const space = { accountId: options.accountId, mode };
    const folder = path.join(dir, mode, 'notes');
    let count = 0;
    let audioFiles = 0;
    let after = '';
    for (;;) {
      const page = await accountExportRepo.noteIdsAfter(deps.db, space, after, PAGE);
      for (const { id } of page) {
        const read = await accountExportRepo.note(deps.db, space, id);
        if (!read) continue;
        if (count === 0) await fsp.mkdir(folder, { recursive: true, mode: DIR_MODE });
        const recording = read.recording ? await exportRecording(deps, folder, read.recording) : null;
        if (recording?.audio) audioFiles += 1;
        await fsp.writeFile(
          path.join(folder, `${id}.json`),
          `${JSON.stringify(toExportedNote(read, recording), null, 2)}\n`,
          {
            mode: FILE_MODE,
          },
        );
        count += 1;
        written += 1;
        options.onNote?.(written);
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1]?.id ?? after;
    }
    if (count) spaces.push({ mode, folder: `${mode}/notes`, notes: count, audio_files: audioFiles });
  }
  const manifest: ExportManifest = {
    format: ACCOUNT_EXPORT_FORMAT,
    version: ACCOUNT_EXPORT_VERSION,
    exported_at: nowIso(),
    spaces,
  };
  await fsp.writeFile(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: FILE_MODE,
  });
  return manifest;
}

type NoteRead = NonNullable<Awaited<ReturnType<typeof accountExportRepo.note>>>;

/**
 * The recording's row as the note file holds it, its audio (if any) copied beside the note file first: into a
 * `.partial` file renamed when complete, so a file of the final name is always whole.
 */
async function exportRecording(
  deps: Deps,
  folder: string,
  row: NonNullable<NoteRead['recording']>,
): Promise<ExportedRecording> {
  let audio: ExportedRecording['audio'] = null;
  if (row.storage_key) {
    const key = row.storage_key;
    const file = `${row.id}${/\.[a-z0-9]+$/.exec(key)?.[0] ?? ''}`;
    const target = path.join(folder, file);
    const copied = await copyHashed(() => deps.audio.read(key), `${target}.partial`).catch((err: unknown) => {
      throw new Error(
        `could not export the audio of recording ${row.id} (${key} in DATA_DIR/audio): ${(err as Error).message}`,
        { cause: err },
      );
    });
    await fsp.rename(`${target}.partial`, target);
    audio = { file, ...copied };
  }
  return {
    id: row.id,
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    duration_seconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
    created_at: row.created_at,
    content_sha256: row.content_sha256,
    language: row.language ?? null,
    audio,
  };
}

function toExportedNote(
  { note, segments, speakers, highlights, actionItems }: NoteRead,
  recording: ExportedRecording | null,
): ExportedNote {
  return {
    id: note.id,
    title: note.title,
    title_locked: note.title_locked === 1,
    status: note.status,
    failure_reason: note.failure_reason,
    summary: note.summary,
    transcript: note.transcript,
    duration_seconds: Number(note.duration_seconds),
    tags: JSON.parse(note.tags) as string[],
    created_at: note.created_at,
    updated_at: note.updated_at,
    source: note.source ?? null,
    source_id: note.source_id ?? null,
    language: note.language ?? null,
    analysis_notes: note.analysis_notes ?? null,
    recording,
    segments: segments.map((s) => ({ ...s, start_ms: Number(s.start_ms), end_ms: Number(s.end_ms) })),
    speakers,
    highlights: highlights.map((h) => ({ ...h, timestamp_ms: Number(h.timestamp_ms) })),
    action_items: actionItems,
  };
}
