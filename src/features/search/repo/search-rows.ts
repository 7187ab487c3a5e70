import type { SearchChunksTable } from '../search.tables.ts';

/** The rows and arguments of the search repository. */

export type { Space } from '../../../lib/space.ts';

/** from/to (half-open ISO bounds, as parsed by rangeBound) and an exact tag. */
export interface SearchFilters {
  from?: string;
  to?: string;
  tag?: string;
}

/** A passage to write for a note: the table's row without its id and owner (the repo adds those). */
export type NewChunkRow = Omit<SearchChunksTable, 'id' | 'note_id' | 'account_id' | 'mode'>;

/** A passage as searches read it. */
export type ChunkRow = Pick<SearchChunksTable, 'note_id' | 'kind' | 'start_ms' | 'line_starts' | 'text'> & {
  id: number;
};
