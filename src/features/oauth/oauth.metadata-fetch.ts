import https from 'node:https';
import type { Deps } from '../../deps.ts';
import { type OutboundPolicy, pinnedLookup, resolveTarget } from '../webhooks/outbound/guarded-request.ts';
import { outboundPolicy } from '../webhooks/webhooks.service.ts';

/** A Client ID Metadata Document names a client and a few URIs: anything bigger is refused. */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
/** From DNS resolution to the last byte; a person waits on the authorization page meanwhile. */
export const METADATA_DOCUMENT_TIMEOUT_MS = 2500;

/**
 * A document that could not be fetched is not asked for again for this long: the library looks a client up a
 * second time to report its error, and a slow or refused host must not cost every authorization twice.
 */
const FAILURE_TTL_MS = 30_000;
const FAILURE_CACHE_MAX = 1000;

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` the authorization server uses for Client ID Metadata Documents: `https` only, through the webhooks'
 * outbound guard (every address the host resolves to vetted, the vetted one dialled, so DNS rebinding cannot
 * swap it), over the deployment's outbound agent, no redirects followed, at most METADATA_DOCUMENT_MAX_BYTES and
 * METADATA_DOCUMENT_TIMEOUT_MS. A refusal or failure rejects, which the library reports as `invalid_client`.
 */
export function guardedMetadataFetch(deps: Deps) {
  const policy: OutboundPolicy = outboundPolicy(deps.config);
  const failures = new Map<string, { until: number; error: Error }>();
  return async (input: string | URL, init: { signal?: AbortSignal } = {}) => {
    const url = new URL(String(input));
    const failed = failures.get(url.href);
    if (failed && failed.until > Date.now()) throw failed.error;
    failures.delete(url.href);
    try {
      return await fetchDocument(deps, policy, url, init.signal);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      failures.set(url.href, { until: Date.now() + FAILURE_TTL_MS, error });
      if (failures.size > FAILURE_CACHE_MAX) failures.delete(failures.keys().next().value!);
      throw error;
    }
  };
}

async function fetchDocument(
  deps: Deps,
  policy: OutboundPolicy,
  url: URL,
  callerSignal: AbortSignal | undefined,
): Promise<Response> {
  if (url.protocol !== 'https:') throw new Error('a client metadata document is fetched over https only');
  const signal = AbortSignal.any([
    AbortSignal.timeout(METADATA_DOCUMENT_TIMEOUT_MS),
    ...(callerSignal ? [callerSignal] : []),
  ]);
  const target = await resolveTarget(url, policy);
  signal.throwIfAborted();
  return new Promise<Response>((resolve, reject) => {
    const request = https.get(url, {
      agent: deps.outbound.https,
      lookup: pinnedLookup(target),
      headers: { accept: 'application/json', 'user-agent': 'Minutes' },
      signal,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('error', reject);
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > METADATA_DOCUMENT_MAX_BYTES) {
          response.destroy();
          reject(new Error(`the client metadata document is over ${METADATA_DOCUMENT_MAX_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        const status = response.statusCode ?? 502;
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of [value ?? []].flat()) headers.append(name, one);
        }
        const body = NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks);
        resolve(new Response(body, { status, headers }));
      });
    });
  });
}
