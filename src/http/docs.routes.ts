import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Hono } from 'hono';
import type { AppEnv } from './context.ts';
import { OPENAPI_PATH } from './openapi-document.ts';

/** Redoc's standalone bundle (React and all included), served from node_modules: no CDN, works offline. */
const REDOC_BUNDLE = 'redoc/bundles/redoc.standalone.js';
export const REDOC_ASSET_PATH = '/docs/redoc.standalone.js';
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * Only this server: the page cannot load fonts, scripts or anything else from elsewhere. Redoc's styles are
 * injected at run time ('unsafe-inline' for styles) and its search runs in a worker built from a blob.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Minutes API reference</title>
<style>body{margin:0}noscript{display:block;padding:2rem;font-family:system-ui,sans-serif}</style>
</head>
<body>
<noscript>This reference needs JavaScript. The document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<redoc spec-url="${OPENAPI_PATH}" expand-responses="200,201,202" path-in-middle-panel="true"></redoc>
<script src="${REDOC_ASSET_PATH}"></script>
</body>
</html>
`;

interface Asset {
  raw: Buffer;
  gzipped: Buffer;
  etag: string;
}

let asset: Promise<Asset> | undefined;

/** Read and compressed once, off the event loop (zlib runs on the thread pool). */
function loadAsset(): Promise<Asset> {
  asset ??= (async () => {
    const file = createRequire(import.meta.url).resolve(REDOC_BUNDLE);
    // The one thing the bundle would fetch from elsewhere is the footer's logo: an empty data: URL instead (the
    // image's error handler hides it), so the page makes no request off this server and trips no CSP report.
    const raw = Buffer.from((await fs.readFile(file, 'utf8')).replace(REDOC_REMOTE_LOGO, 'data:,'), 'utf8');
    const version = (createRequire(import.meta.url)('redoc/package.json') as { version: string }).version;
    return { raw, gzipped: await promisify(gzip)(raw), etag: `"redoc-${version}"` };
  })();
  asset.catch(() => {
    asset = undefined;
  });
  return asset;
}

/**
 * The rendered API reference (no key needed, API.md): `GET /docs` (Redoc over /v1/openapi.json) and its script.
 * `GET /` is the dashboard's (its footer links here).
 */
export function docsRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', CSP);
    c.header('Cache-Control', 'no-cache');
    return c.html(PAGE);
  });
  app.get(REDOC_ASSET_PATH, async (c) => {
    const { raw, gzipped, etag } = await loadAsset();
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('ETag', etag);
    c.header('Vary', 'Accept-Encoding');
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
      c.header('Content-Encoding', 'gzip');
      return c.body(new Uint8Array(gzipped));
    }
    return c.body(new Uint8Array(raw));
  });
  return app;
}
