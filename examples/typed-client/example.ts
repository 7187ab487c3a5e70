// A typed Minutes client in a few lines: types generated from the OpenAPI document by openapi-typescript
// (minutes-api.d.ts), requests made by openapi-fetch. Paths, bodies, query parameters and responses are all
// checked by TypeScript; CI typechecks this file and runs it against a test server (test/clients).
import createClient from 'openapi-fetch';
import type { components, paths } from './minutes-api.d.ts';

export type MinutesClient = ReturnType<typeof createMinutesClient>;
export type Note = components['schemas']['NoteDetail'];

/** A client for one server and one API key (svc_sk_live_… or svc_sk_test_…). */
export function createMinutesClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
}

/** Creates a note from a transcript and returns it as accepted (status `processing`). */
export async function importTranscript(
  client: MinutesClient,
  title: string,
  transcript: string,
): Promise<Note> {
  const { data, error } = await client.POST('/v1/notes', { body: { title, transcript } });
  if (error) throw new Error(`${error.error.code}: ${error.error.message}`);
  return data;
}

/** Titles of the newest notes carrying a tag. */
export async function recentTitles(client: MinutesClient, tag: string): Promise<string[]> {
  const { data, error } = await client.GET('/v1/notes', { params: { query: { tag, per_page: 10 } } });
  if (error) throw new Error(`${error.error.code}: ${error.error.message}`);
  return data.data.map((note) => note.title ?? '(untitled)');
}

/** The best matches of a question; `limit` and `min_relevance` are optional (the server's defaults apply). */
export async function ask(client: MinutesClient, query: string) {
  const { data, error } = await client.POST('/v1/search', { body: { query } });
  if (error) throw new Error(`${error.error.code}: ${error.error.message}`);
  return data.results.map((r) => ({ note: r.note_id, snippet: r.snippet, relevance: r.relevance }));
}

/** The API's error, typed: here, the 404 of a note that does not exist. */
export async function missingNote(client: MinutesClient): Promise<string | undefined> {
  const { error, response } = await client.GET('/v1/notes/{id}', {
    params: { path: { id: 'note_000000000000000000000000' } },
  });
  return error ? `${response.status} ${error.error.code}` : undefined;
}
