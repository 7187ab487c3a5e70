import type { SearchFilters } from './search.repo.ts';

/** What a caller asks of search, and what one result is; shared by the service and the evidence it gathers. */
export interface SearchInput extends SearchFilters {
  query: string;
  limit: number;
  min_relevance: number;
}

export interface SearchResult {
  note_id: string;
  title: string;
  snippet: string;
  relevance: number;
  created_at: string;
  matched_at_ms?: number;
}
