import type { Harness } from './harness.ts';

/** Sends `raw` as the body with the given content type: a body the harness's JSON requests never carry. */
export function sendRaw(
  h: Harness,
  method: string,
  path: string,
  key: string,
  raw: string,
  contentType: string,
) {
  return h.request(method, path, { key, raw, headers: { 'content-type': contentType } });
}
