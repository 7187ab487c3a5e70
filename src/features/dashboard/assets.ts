import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Context } from 'hono';

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

export interface Assets {
  /** Changes whenever an asset does: the `?v=` of asset URLs, which are cached for a year. */
  version: string;
  serve(c: Context, name: string): Response;
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/** web/assets, found from this module's place (src/features/dashboard under tsx, dist/ in the bundle). */
function assetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'web', 'assets');
    if (fs.existsSync(path.join(candidate, 'app.css'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('web/assets not found next to the server code');
}

/**
 * The dashboard's stylesheet and script: plain files, no build step, read and gzipped once at start (a few
 * kilobytes: about a millisecond). Served by Minutes itself, so the dashboard works with no network.
 */
export function loadAssets(): Assets {
  const dir = assetsDir();
  const files = new Map<string, Asset>();
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(dir).sort()) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const body = fs.readFileSync(path.join(dir, name));
    hash.update(name).update(body);
    files.set(name, { type, body, gzip: gzipSync(body, { level: 9 }) });
  }
  const version = hash.digest('hex').slice(0, 12);
  return {
    version,
    serve(c, name) {
      const asset = files.get(name);
      if (!asset) return c.text('Not found', 404);
      const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
      const headers: Record<string, string> = {
        'Content-Type': asset.type,
        'Cache-Control': 'public, max-age=31536000, immutable',
        Vary: 'Accept-Encoding',
        'X-Content-Type-Options': 'nosniff',
      };
      if (gzip) headers['Content-Encoding'] = 'gzip';
      const body = gzip ? asset.gzip : asset.body;
      return c.body(new Uint8Array(body), 200, headers);
    },
  };
}
