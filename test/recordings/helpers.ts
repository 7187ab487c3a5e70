import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Mode } from '../../src/db/schema.ts';
import type { Harness, TestResponse } from '../helpers/harness.ts';
import { checkResponseAgainstOpenApi } from '../helpers/openapi-check.ts';

/** A fresh DATA_DIR for one suite, so audio files of tests never land in the checkout. */
export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-rec-'));
}

export interface UploadOptions {
  key: string;
  file?: { bytes: Uint8Array; filename?: string; type?: string };
  fields?: [string, string][];
  headers?: Record<string, string>;
}

/**
 * POST /v1/recordings as multipart/form-data built by the platform's FormData (as browsers and fetch send it),
 * straight to the app; the response is checked against the served OpenAPI document like h.request does.
 */
export async function upload(h: Harness, options: UploadOptions): Promise<TestResponse> {
  const form = new FormData();
  for (const [name, value] of options.fields ?? []) form.append(name, value);
  if (options.file) {
    form.append(
      'file',
      new Blob([options.file.bytes], { type: options.file.type ?? 'application/octet-stream' }),
      options.file.filename ?? 'audio.bin',
    );
  }
  const res = await h.app.request('/v1/recordings', {
    method: 'POST',
    headers: { authorization: `Bearer ${options.key}`, ...options.headers },
    body: form,
  });
  return finish(h, 'POST', '/v1/recordings', res);
}

/** Sends a hand-written multipart body (for malformed and edge cases FormData cannot produce). */
export async function uploadRaw(
  h: Harness,
  key: string,
  body: string | Uint8Array,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const res = await h.app.request('/v1/recordings', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers },
    body,
  });
  return finish(h, 'POST', '/v1/recordings', res);
}

async function finish(h: Harness, method: string, p: string, res: Response): Promise<TestResponse> {
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  await checkResponseAgainstOpenApi(h.app, { method, path: p, status: res.status, body });
  return { status: res.status, headers: res.headers, body: body as any, text };
}

/** The outbox of one account and mode, oldest first, payloads parsed. */
export async function eventsOf(h: Harness, accountId: string, mode: Mode = 'live') {
  const rows = await h.db.db
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    type: r.type,
    ...(JSON.parse(r.payload) as { id: string; created_at: string; data: any }),
  }));
}

/** Every file under a directory, relative paths, sorted. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  // A file the server removes between the listing and its stat (an upload's temp file) is gone, not an error.
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => fs.statSync(path.join(dir, p), { throwIfNoEntry: false })?.isFile() ?? false)
    .sort();
}
