import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  type AllowList,
  ipToBytes,
  isAddressAllowed,
  isHostAllowed,
  parseAllowList,
  privateAddressReason,
} from './is-private-address.ts';

/** Where outbound webhook requests may go: the deployment's settings. */
export interface OutboundPolicy {
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS: allows `http://` and private/loopback targets (development, tests). */
  allowPrivateTargets: boolean;
  /** WEBHOOKS_ALLOW_HOSTS: hosts and ranges exempt from the private-address check (still https only). */
  allowList: AllowList;
}

export function createOutboundPolicy(settings: {
  allowPrivateTargets: boolean;
  allowHosts: readonly string[];
}) {
  return {
    allowPrivateTargets: settings.allowPrivateTargets,
    allowList: parseAllowList(settings.allowHosts),
  };
}

/** The guard refused the target: it is, or resolves to, an address a webhook may not reach. */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
  /**
   * For the operator's log only (never the attempt log a key holder reads): what the host resolved to. Telling
   * the key holder would map the deployment's internal names to addresses.
   */
  readonly detail?: string;
  constructor(message: string, detail?: string) {
    super(message);
    if (detail !== undefined) this.detail = detail;
  }
}

/** The attempt-log text of a host name refused at resolution: says why, not what it resolved to, or whether it did. */
export const REFUSED_PRIVATE_ADDRESS =
  'Refused: no public address. The host name does not resolve, or resolves to an address webhooks may not reach ' +
  '(private, loopback, link-local, metadata or otherwise not public); webhooks are delivered over the public ' +
  'internet only.';

/**
 * A failed lookup, told apart from a private address only in the operator's log while the private-address check
 * is on: otherwise the attempt log would say which internal names exist (they resolve, and are refused) and which
 * do not.
 */
function unresolved(host: string, policy: OutboundPolicy, message: string): Error {
  if (policy.allowPrivateTargets || isHostAllowed(policy.allowList, host)) return new Error(message);
  return new TargetRefusedError(REFUSED_PRIVATE_ADDRESS, message);
}

/** The host part of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks what can be known about a webhook URL without resolving it: http(s) only (http only when private
 * targets are allowed), no credentials, and a host that is not a private IP literal. Host names, `localhost`
 * and `*.localhost` included, pass: they are judged at delivery by the addresses they resolve to (API.md).
 * Returns a sentence saying what is wrong, or null.
 */
export function checkUrlStatically(raw: string, policy: OutboundPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL, e.g. https://example.com/webhooks';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return policy.allowPrivateTargets ? 'must be an http:// or https:// URL' : 'must be an https:// URL';
  }
  if (url.protocol === 'http:' && !policy.allowPrivateTargets) {
    return 'must use https:// (http:// is allowed only when the server sets WEBHOOKS_ALLOW_PRIVATE_TARGETS=true)';
  }
  if (url.username || url.password)
    return 'must not contain credentials; verify deliveries with the signing secret';
  if (policy.allowPrivateTargets) return null;
  const host = urlHost(url);
  if (ipToBytes(host)) {
    const why = privateAddressReason(host);
    if (why && !isAddressAllowed(policy.allowList, host)) {
      return `must not point to a ${why} address; webhooks are delivered over the public internet`;
    }
  }
  return null;
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses. */
export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** How long a resolved host is reused: short, so DNS changes (a moved receiver) are followed promptly. */
export const DNS_CACHE_TTL_MS = 10_000;
const DNS_CACHE_MAX_HOSTS = 1000;

/**
 * A lookup that reuses each host's answer for `ttlMs` (one resolution per host and interval instead of one
 * per attempt; concurrent lookups of a host share one query). Only answers are cached, not verdicts:
 * `resolveTarget` vets every address on every attempt and pins the one it dials, so the cache cannot let a
 * private address through, and a rebinding resolver gains nothing (a cached answer is what was vetted).
 * Failures are not cached.
 */
export function createCachingLookup(
  options: { ttlMs?: number; maxHosts?: number; lookup?: Lookup; now?: () => number } = {},
): Lookup {
  const ttlMs = options.ttlMs ?? DNS_CACHE_TTL_MS;
  const maxHosts = options.maxHosts ?? DNS_CACHE_MAX_HOSTS;
  const lookup = options.lookup ?? systemLookup;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { expires: number; answer: ReturnType<Lookup> }>();
  return (hostname) => {
    const key = hostname.toLowerCase();
    const hit = cache.get(key);
    if (hit && hit.expires > now()) return hit.answer;
    cache.delete(key);
    const answer = lookup(hostname);
    const entry = { expires: now() + ttlMs, answer };
    cache.set(key, entry);
    if (cache.size > maxHosts) cache.delete(cache.keys().next().value!);
    answer.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return answer;
  };
}

/**
 * Resolves the URL's host and vets every address it resolves to: one private address among them refuses the
 * whole target (a resolver may hand out any of them). Returns the address to dial.
 */
export async function resolveTarget(
  url: URL,
  policy: OutboundPolicy,
  lookup: Lookup = systemLookup,
): Promise<ResolvedTarget> {
  // Host names, localhost included, are judged by what they resolve to (every attempt).
  const check = checkUrlStatically(url.href, policy);
  if (check) throw new TargetRefusedError(`Refused to connect: the webhook URL ${check}.`);
  const host = urlHost(url);
  const literal = ipToBytes(host);
  let addresses: { address: string; family: number }[];
  if (literal) addresses = [{ address: host, family: literal.length === 4 ? 4 : 6 }];
  else {
    try {
      addresses = await lookup(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw unresolved(host, policy, `DNS lookup of ${host} failed (${code ?? 'error'}).`);
    }
  }
  if (!addresses.length) throw unresolved(host, policy, `DNS lookup of ${host} returned no address.`);
  if (!policy.allowPrivateTargets && !isHostAllowed(policy.allowList, host)) {
    for (const { address } of addresses) {
      const why = privateAddressReason(address);
      if (why && !isAddressAllowed(policy.allowList, address)) {
        throw new TargetRefusedError(REFUSED_PRIVATE_ADDRESS, `${host} resolves to ${address} (${why})`);
      }
    }
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A lookup that always answers with the vetted address, so the socket dials exactly what was checked. */
export function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else callback(null, target.address, target.family);
  };
}

export interface OutboundAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

/** Keep-alive connection pools for one worker; sockets are opened only through pinned, vetted lookups. */
export function createOutboundAgents(maxSockets: number): OutboundAgents {
  const options = {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: Math.min(maxSockets, 256),
    scheduling: 'lifo' as const,
  };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    ...agents,
    destroy: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

export interface OutboundResponse {
  status: number;
  /** The start of the body as text (at most `keepBodyBytes` bytes). */
  body: string;
  /** The body was longer than what was kept. */
  truncated: boolean;
}

export interface GuardedPostOptions {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** From the start of DNS resolution to the end of the response body. */
  timeoutMs: number;
  policy: OutboundPolicy;
  agents: OutboundAgents;
  /** Bytes of the response body kept for the attempt log. */
  keepBodyBytes?: number;
  /** Replaces the system resolver (tests of the guard). */
  lookup?: Lookup;
}

/** Larger responses are cut off: the connection is dropped rather than drained. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** The attempt did not finish within its time budget. */
export class OutboundTimeoutError extends Error {
  override name = 'OutboundTimeoutError';
}

/**
 * POSTs through the outbound guard: resolves and vets the target, dials the vetted address (DNS rebinding
 * cannot swap it), never follows redirects (a 3xx is returned as it is), and gives up after `timeoutMs`.
 * Throws TargetRefusedError when the guard refuses, OutboundTimeoutError on timeout, Error on network errors.
 */
export function guardedPost(options: GuardedPostOptions): Promise<OutboundResponse> {
  const url = new URL(options.url);
  // One timer for the whole attempt, no AbortController or promise races: this runs for every delivery.
  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    const timer = setTimeout(() => {
      settled = true;
      reject(new OutboundTimeoutError(`Timed out after ${options.timeoutMs} ms.`));
      request?.destroy();
    }, options.timeoutMs);
    const settle =
      <T>(fn: (value: T) => void) =>
      (value: T) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn(value);
      };
    resolveTarget(url, options.policy, options.lookup)
      .then((target) => {
        // Timed out while resolving: nothing is sent.
        if (settled) return undefined;
        return send(url, target, options, (r) => {
          request = r;
        });
      })
      .then(settle(resolve as (value: OutboundResponse | undefined) => void), settle(reject));
  });
}

function send(
  url: URL,
  target: ResolvedTarget,
  options: GuardedPostOptions,
  started: (request: http.ClientRequest) => void,
): Promise<OutboundResponse> {
  const keep = options.keepBodyBytes ?? 1024;
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        agent: secure ? options.agents.https : options.agents.http,
        lookup: pinnedLookup(target),
        headers: { ...options.headers, 'content-length': String(options.body.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (kept < keep) {
            chunks.push(chunk.subarray(0, keep - kept));
            kept += Math.min(chunk.length, keep - kept);
          }
          if (size > MAX_RESPONSE_BYTES) {
            response.destroy();
            finish();
          }
        });
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, body: text, truncated: size > kept });
        };
        response.on('end', finish);
        response.on('error', (error) => (done ? undefined : reject(describeNetworkError(error))));
      },
    );
    request.on('error', (error) => reject(describeNetworkError(error)));
    started(request);
    request.end(options.body);
  });
}

/** A network failure as one readable sentence (never the request headers, which carry signatures). */
function describeNetworkError(error: unknown): Error {
  const e = error as NodeJS.ErrnoException;
  if (e.name === 'AbortError') return new OutboundTimeoutError('The request was aborted (timeout).');
  const known: Record<string, string> = {
    ECONNREFUSED: 'Connection refused.',
    ECONNRESET: 'The connection was reset by the receiver.',
    EPIPE: 'The connection was closed by the receiver while sending.',
    ETIMEDOUT: 'The connection timed out.',
    EHOSTUNREACH: 'The host is unreachable.',
    ENETUNREACH: 'The network is unreachable.',
  };
  if (e.code && known[e.code]) return new Error(known[e.code]);
  if (e.code?.startsWith('ERR_TLS') || /certificate|SSL|TLS/i.test(e.message)) {
    return new Error(`TLS error: ${e.message}`);
  }
  return new Error(e.code ? `${e.code}: ${e.message}` : e.message || 'Network error.');
}
