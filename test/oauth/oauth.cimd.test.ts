import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_DOCUMENT_MAX_BYTES } from '../../src/features/oauth/oauth.metadata-fetch.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import {
  authorizeCode,
  authorizePath,
  BrowserLike,
  pkcePair,
  REDIRECT_URI,
  redeemCode,
  refreshTokens,
} from './oauth-client.ts';

/** A self-signed certificate for 127.0.0.1, made for this run only. */
function selfSignedCertificate(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-cimd-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The client's web server: serves metadata documents over HTTPS on 127.0.0.1 (good, oversized, slow, mismatched,
 * redirecting), counts what it was asked for, and holds slow requests until it closes.
 */
async function startDocumentServer(certificate: { key: string; cert: string }) {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  let origin = '';
  const doc = (name: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      client_id: `${origin}/${name}`,
      client_name: `Document client ${name}`,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    });
  const server = https.createServer(certificate, (req, res) => {
    const name = (req.url ?? '/').slice(1).split('?')[0]!;
    hits.set(name, (hits.get(name) ?? 0) + 1);
    const json = { 'content-type': 'application/json' };
    if (name.startsWith('valid')) return res.writeHead(200, json).end(doc(name));
    if (name === 'oversized-declared') {
      return res.writeHead(200, json).end(doc(name, { pad: 'x'.repeat(METADATA_DOCUMENT_MAX_BYTES) }));
    }
    if (name === 'oversized-chunked') {
      // No content-length: the cap must hold while the body streams.
      res.writeHead(200, json);
      res.write(doc(name).slice(0, -1));
      res.write(`,"pad":"${'x'.repeat(METADATA_DOCUMENT_MAX_BYTES)}`);
      return res.end('"}');
    }
    if (name === 'slow') return undefined; // never answers; the socket is destroyed at close
    if (name === 'mismatch')
      return res.writeHead(200, json).end(doc(name, { client_id: `${origin}/valid-x` }));
    if (name === 'elsewhere') {
      return res.writeHead(200, json).end(doc(name, { redirect_uris: ['https://app.example/callback'] }));
    }
    if (name === 'redirect') return res.writeHead(302, { location: `${origin}/valid-target` }).end();
    if (name === 'not-json') return res.writeHead(200, json).end('<html>hello</html>');
    return res.writeHead(404).end();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

type DocumentServer = Awaited<ReturnType<typeof startDocumentServer>>;

/** Trusts the test's certificate through the outbound agent the product dials with (the CA option). */
function useDocumentServer(h: Harness) {
  const state: { server?: DocumentServer; agent?: https.Agent } = {};
  beforeAll(async () => {
    const certificate = selfSignedCertificate();
    state.server = await startDocumentServer(certificate);
    state.agent = new https.Agent({ ca: certificate.cert, keepAlive: false });
    h.deps.outbound.https = state.agent;
  });
  afterAll(async () => {
    await state.server?.close();
    state.agent?.destroy();
  });
  return () => state.server!;
}

function authorizeUrl(clientId: string, base: string, extra: Record<string, string> = {}) {
  return authorizePath(clientId, { resource: `${base}/mcp`, ...extra });
}

/** Our own error page (never a redirect): its status and the RFC error code it shows. */
async function errorPage(base: string, url: string) {
  const res = await new BrowserLike(base).get(url);
  return {
    status: res.status,
    location: res.location,
    error: /<code>([a-z_]+)<\/code>/.exec(res.text)?.[1] ?? null,
  };
}

for (const dialect of DIALECTS) {
  describe(`OAuth Client ID Metadata Documents over the outbound guard (${dialect})`, () => {
    const h = useHarness(dialect, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    const port = useServedApp(h);
    const docs = useDocumentServer(h);
    const base = () => `http://127.0.0.1:${port()}`;

    it('a valid document is a client: consent shows its name, the code is redeemed without a secret', async () => {
      const clientId = `${docs().origin}/valid-journey`;
      const pkce = pkcePair();
      const start = await new BrowserLike(base()).get(authorizeUrl(clientId, base()));
      expect(start.status).toBe(303);
      expect(new URL(start.location!, base()).pathname).toMatch(/^\/oauth\/consent\//);
      const { code, browser } = await authorizeCode(h, base(), clientId, pkce);
      const token = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(token.status).toBe(200);
      expect(token.body.access_token).toEqual(expect.any(String));
      const connected = await browser.get('/settings/mcp');
      expect(connected.text).toContain('Document client valid-journey');
      // Cached: the whole journey fetched the document once.
      expect(docs().hits.get('valid-journey')).toBe(1);
    });

    it('an oversized document is invalid_client on our own page, whether or not it declares its length', async () => {
      for (const name of ['oversized-declared', 'oversized-chunked']) {
        const page = await errorPage(base(), authorizeUrl(`${docs().origin}/${name}`, base()));
        expect(page).toMatchObject({ status: 400, location: null, error: 'invalid_client' });
        expect(docs().hits.get(name)).toBe(1);
      }
    });

    it('a document that does not answer in time is invalid_client, not a hang or a 500', async () => {
      const page = await errorPage(base(), authorizeUrl(`${docs().origin}/slow`, base()));
      expect(page).toMatchObject({ status: 400, location: null, error: 'invalid_client' });
      expect(docs().hits.get('slow')).toBe(1);
    });

    it('a document whose client_id is not its own URL is refused', async () => {
      const page = await errorPage(base(), authorizeUrl(`${docs().origin}/mismatch`, base()));
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(['invalid_client', 'invalid_client_metadata']).toContain(page.error);
    });

    it('a redirect is not followed and a body that is not JSON is refused', async () => {
      for (const name of ['redirect', 'not-json']) {
        const page = await errorPage(base(), authorizeUrl(`${docs().origin}/${name}`, base()));
        expect(page).toMatchObject({ status: 400, location: null, error: 'invalid_client' });
      }
      expect(docs().hits.get('valid-target')).toBeUndefined();
    });

    it('an http:// client_id is not a metadata document: invalid_client, and nothing is fetched', async () => {
      const clientId = `${docs().origin.replace('https:', 'http:')}/valid-plain`;
      const page = await errorPage(base(), authorizeUrl(clientId, base()));
      expect(page).toMatchObject({ status: 400, location: null, error: 'invalid_client' });
      expect(docs().hits.get('valid-plain')).toBeUndefined();
    });

    it('a redirect_uri the document does not list is shown on our page, never redirected to', async () => {
      const page = await errorPage(base(), authorizeUrl(`${docs().origin}/elsewhere`, base()));
      expect(page).toMatchObject({ status: 400, location: null, error: 'invalid_redirect_uri' });
      const other = await errorPage(
        base(),
        authorizeUrl(`${docs().origin}/valid-other-uri`, base(), {
          redirect_uri: 'https://attacker.example/cb',
        }),
      );
      expect(other).toMatchObject({ status: 400, location: null, error: 'invalid_redirect_uri' });
    });

    it('a metadata document client cannot be used with a client secret at the token endpoint', async () => {
      const res = await refreshTokens(base(), `${docs().origin}/valid-secret`, 'x', {
        client_secret: 'guess',
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });
  });

  describe(`OAuth Client ID Metadata Documents: private addresses refused by default (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const docs = useDocumentServer(h);
    const base = () => `http://127.0.0.1:${port()}`;

    it('a document on a loopback address is never fetched: invalid_client', async () => {
      const page = await errorPage(base(), authorizeUrl(`${docs().origin}/valid-private`, base()));
      expect(page).toMatchObject({ status: 400, location: null, error: 'invalid_client' });
      expect(docs().hits.get('valid-private')).toBeUndefined();
    });

    it('a host name that resolves to a loopback address is refused when it is resolved, before any connection', async () => {
      const clientId = `${docs().origin.replace('127.0.0.1', 'localhost')}/valid-private-name`;
      const page = await errorPage(base(), authorizeUrl(clientId, base()));
      expect(page).toMatchObject({ status: 400, location: null, error: 'invalid_client' });
      expect(docs().hits.get('valid-private-name')).toBeUndefined();
    });
  });
}
