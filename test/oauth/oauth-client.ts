import { createHash, randomBytes } from 'node:crypto';
import { createSetupLink } from '../../src/features/users/users.service.ts';
import { csrfIn, encodeForm } from '../dashboard/dashboard-client.ts';
import type { Harness, Tenant } from '../helpers/harness.ts';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  json(): any;
}

/** A browser-like client of a served app: a cookie jar, redirects not followed, forms url-encoded. */
export class BrowserLike {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async request(
    method: string,
    pathOrUrl: string,
    init: { form?: Record<string, string | string[]>; headers?: Record<string, string> } = {},
  ): Promise<HttpAnswer> {
    const url = new URL(pathOrUrl, this.base);
    // Browsers send their Origin on every post; the dashboard refuses a post without one.
    const origin: Record<string, string> =
      method === 'GET' || method === 'HEAD' ? {} : { origin: new URL(this.base).origin };
    const headers: Record<string, string> = { ...origin, ...init.headers };
    if (this.cookies.size && url.origin === new URL(this.base).origin) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    let body: string | undefined;
    if (init.form) {
      body = encodeForm(init.form);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = pair!.split('=');
      const value = rest.join('=');
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      location: res.headers.get('location'),
      json: () => JSON.parse(text),
    };
  }

  get(path: string) {
    return this.request('GET', path);
  }
}

const PASSWORD = 'correct horse battery';

/** Signs the tenant's person in to the dashboard of the served app. */
export async function signIn(h: Harness, t: Tenant, browser: BrowserLike): Promise<void> {
  const { token } = await createSetupLink(h.deps, t.accountId);
  const setup = await browser.get(`/setup?token=${token}`);
  await browser.request('POST', '/setup', {
    form: { _csrf: csrfIn(setup.text), token, password: PASSWORD, confirm: PASSWORD },
  });
  const page = await browser.get('/sign-in');
  await browser.request('POST', '/sign-in', {
    form: { _csrf: csrfIn(page.text), email: t.email, password: PASSWORD },
  });
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** What every test client registers with: our callback, both grants, the code flow. */
export const CLIENT_METADATA = {
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
};

/** Posts client metadata to the registration endpoint (RFC 7591) as given; answers the status and the JSON. */
export async function postRegistration(base: string, metadata: Record<string, unknown>) {
  const res = await fetch(new URL('/oauth/register', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Registers a public client (RFC 7591) and answers its client_id. */
export async function registerClient(base: string, metadata: Record<string, unknown> = {}): Promise<string> {
  const { status, body } = await postRegistration(base, {
    client_name: 'Journey Assistant',
    ...CLIENT_METADATA,
    token_endpoint_auth_method: 'none',
    ...metadata,
  });
  if (status !== 201 || !body.client_id)
    throw new Error(`registration failed: ${status} ${JSON.stringify(body)}`);
  return body.client_id as string;
}

export async function tokenRequest(base: string, form: Record<string, string>) {
  const res = await fetch(new URL('/oauth/token', base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Redeems an authorization code with its PKCE verifier, as the client registered at REDIRECT_URI does. */
export function redeemCode(
  base: string,
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) {
  return tokenRequest(base, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    ...extra,
  });
}

/** Redeems a refresh token for the client. */
export function refreshTokens(
  base: string,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
) {
  return tokenRequest(base, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
    ...extra,
  });
}

/**
 * The authorization request's path: the code flow with S256 PKCE to REDIRECT_URI, scope notes:read, state s,
 * changed by `extra` and without the parameters named in `drop`.
 */
export function authorizePath(clientId: string, extra: Record<string, string> = {}, drop: string[] = []) {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    scope: 'notes:read',
    state: 's',
    ...extra,
  });
  for (const name of drop) params.delete(name);
  return `/oauth/authorize?${params}`;
}

/**
 * A new tenant's person signs in and starts the authorization request; answers the tenant, the browser, the
 * authorize answer and the consent page's path it redirects to.
 */
export async function openConsent(
  h: Harness,
  base: string,
  clientId: string,
  extra: Record<string, string> = {},
) {
  const t = await h.tenant();
  const browser = new BrowserLike(base);
  await signIn(h, t, browser);
  const authorize = await browser.get(authorizePath(clientId, extra));
  const consentPath = new URL(authorize.location ?? '/', base).pathname;
  return { t, browser, authorize, consentPath };
}

/**
 * Posts the consent form with the page's CSRF token and follows the library's redirect towards the client;
 * answers every step, the last one's location being the client's callback.
 */
export async function submitConsent(
  browser: BrowserLike,
  consentPath: string,
  form: Record<string, string | string[]>,
) {
  const page = await browser.get(consentPath);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!csrf) throw new Error(`no consent form: ${page.status}`);
  const posted = await browser.request('POST', consentPath, {
    form: { _csrf: csrf, ...form },
    headers: { origin: browser.base },
  });
  const resumed = await browser.get(posted.location!);
  return { page, posted, resumed };
}

/** One JSON-RPC call to /mcp (2025-era stateless: initialize is not needed for tools/call on this server). */
export async function mcpCall(
  base: string,
  token: string | null,
  name: string,
  args: Record<string, unknown> = {},
) {
  const res = await fetch(new URL('/mcp', base), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const dataLine = text.split('\n').find((l) => l.startsWith('data: '));
  let body: any;
  try {
    body = JSON.parse(dataLine ? dataLine.slice(6) : text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * A signed-in person of a new tenant authorizes the client on the consent page (all offered scopes, live data);
 * answers the code from the callback and the browser.
 */
export async function authorizeCode(
  h: Harness,
  base: string,
  clientId: string,
  pkce: { challenge: string },
  extra: Record<string, string> = {},
) {
  const { t, browser, authorize, consentPath } = await openConsent(h, base, clientId, {
    code_challenge: pkce.challenge,
    scope: 'notes:read search',
    state: 'st',
    resource: `${base}/mcp`,
    ...extra,
  });
  if (authorize.status !== 303)
    throw new Error(`authorize answered ${authorize.status}: ${authorize.location}`);
  const { resumed } = await submitConsent(browser, consentPath, {
    scope: ['notes:read', 'search'],
    mode: 'live',
    decision: 'allow',
  });
  const code = new URL(resumed.location!).searchParams.get('code');
  if (!code) throw new Error(`no code: ${resumed.location}`);
  return { t, browser, code };
}
