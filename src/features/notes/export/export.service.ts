import type { Deps } from '../../../deps.ts';
import type { Actor } from '../../api-keys/scopes.ts';
import { getNote, listNotes } from '../notes.service.ts';
import {
  contentDisposition,
  EXPORT_CONTENT_TYPES,
  type ExportFormat,
  exportBaseName,
  formatNote,
} from './export-formats.ts';

/** One exported file: its bytes as text, media type and name. */
export interface ExportedFile {
  noteId: string;
  /** `YYYY-MM-DD Title.<ext>`: Obsidian-friendly, also what the download is named. */
  fileName: string;
  contentType: string;
  contentDisposition: string;
  body: string;
}

/**
 * One note of the caller in an export format (`GET /v1/notes/:id/export`, `minutes export`): 404 for
 * ids of other accounts or the other mode, as for every read.
 */
export async function exportNote(
  deps: Deps,
  actor: Actor,
  input: { id: string; format: ExportFormat },
): Promise<ExportedFile> {
  const note = await getNote(deps, actor, input.id, { segments: true });
  const base = exportBaseName(note);
  return {
    noteId: note.id,
    fileName: `${base}.${input.format}`,
    contentType: EXPORT_CONTENT_TYPES[input.format],
    contentDisposition: contentDisposition(base, input.format),
    body: formatNote(note, input.format),
  };
}

/**
 * The ids of the caller's notes matching the filters (date range, tag), newest first, page by page: what a
 * whole-account export walks. A page at a time, so an account of any size is never loaded at once.
 */
export async function* exportableNoteIds(
  deps: Deps,
  actor: Actor,
  filters: { from?: string; to?: string; tag?: string },
): AsyncGenerator<{ id: string; total: number }> {
  const perPage = 100;
  // A note created meanwhile shifts the pages: the one pushed onto the next page is not given twice.
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const { data, meta } = await listNotes(deps, actor, {
      from: filters.from,
      to: filters.to,
      tag: filters.tag,
      page,
      per_page: perPage,
    });
    for (const n of data) {
      if (seen.has(n.id)) continue;
      seen.add(n.id);
      yield { id: n.id, total: meta.total };
    }
    if (data.length < perPage) return;
  }
}
