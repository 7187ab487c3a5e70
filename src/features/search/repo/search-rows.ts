import type { ChunkKind } from '../chunk-note.ts';

/** The rows and arguments of the search repository. */

export type { Space } from '../../../lib/space.ts';

/** from/to (half-open ISO bounds, as parsed by rangeBound) and an exact tag. */
export interface SearchFilters {
  from?: string;
  to?: string;
  tag?: string;
}

export interface NewChunkRow {
  kind: ChunkKind;
  position: number;
  start_ms: number | null;
  line_starts: string | null;
  text: string;
  text_hash: string;
  embedding: Uint8Array | null;
  embedder: string | null;
}

export interface ChunkRow {
  id: number;
  note_id: string;
  kind: ChunkKind;
  start_ms: number | null;
  line_starts: string | null;
  text: string;
}
