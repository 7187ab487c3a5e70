import type { buildApp } from '../../src/app.ts';
import { createSetupLink } from '../../src/features/users/users.service.ts';
import type { Harness, Tenant } from '../helpers/harness.ts';

/** A form as a browser url-encodes it: a field with several values is repeated. */
export function encodeForm(form: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) params.append(k, one);
  return params.toString();
}

/**
 * A browser-like client of the dashboard over app.request: keeps cookies, reads CSRF fields, posts forms with
 * this server's Origin (as browsers do), from a client address (the socket's peer the server sees).
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly app: ReturnType<typeof buildApp>,
    private readonly address = '203.0.113.10',
  ) {}

  async request(
    method: string,
    path: string,
    init: { form?: Record<string, string | string[]>; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = {
      ...(method === 'GET' || method === 'HEAD' ? {} : { origin: 'http://localhost' }),
      ...init.headers,
    };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      body = encodeForm(init.form);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const env = { incoming: { socket: { remoteAddress: this.address } } };
    const res = await this.app.request(path, { method, headers, body, redirect: 'manual' }, env);
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = pair!.split('=');
      const value = rest.join('=');
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  get(path: string) {
    return this.request('GET', path);
  }

  /** GETs the page, then posts the form with the given action, carrying its `_csrf` field. */
  async submit(
    pagePath: string,
    action: string,
    form: Record<string, string | string[]>,
    headers?: Record<string, string>,
  ) {
    const page = await this.get(pagePath);
    const csrf = csrfIn(page.text);
    return this.request('POST', action, { form: { _csrf: csrf, ...form }, ...(headers ? { headers } : {}) });
  }
}

export function csrfIn(pageHtml: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(pageHtml);
  if (!m) throw new Error('no CSRF field on the page');
  return m[1]!;
}

/** The password tests set through a set-up link. */
const PASSWORD = 'correct horse battery';

/** A client signed in as the tenant's person, who first sets PASSWORD through a set-up link. */
export async function signedInClient(h: Harness, t: Tenant): Promise<DashboardClient> {
  const client = new DashboardClient(h.app);
  const { token } = await createSetupLink(h.deps, t.accountId);
  const setup = await client.get(`/setup?token=${token}`);
  await client.request('POST', '/setup', {
    form: { _csrf: csrfIn(setup.text), token, password: PASSWORD, confirm: PASSWORD },
  });
  await client.submit('/sign-in', '/sign-in', { email: t.email, password: PASSWORD });
  return client;
}
