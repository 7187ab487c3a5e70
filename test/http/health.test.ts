import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    it('GET /healthz answers 200 without a key', async () => {
      const res = await h.request('GET', '/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok' });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('GET /readyz answers 200 without a key when the database is reachable', async () => {
      const res = await h.request('GET', '/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok' });
    });

    it('health checks ignore a bad Authorization header', async () => {
      for (const path of ['/healthz', '/readyz']) {
        const res = await h.request('GET', path, { headers: { authorization: 'Bearer nonsense' } });
        expect(res.status).toBe(200);
      }
    });
  });

  describe(`${dialect}: a database that fails`, () => {
    const h = useHarness(dialect);
    const broken =
      dialect === 'postgres'
        ? openDatabase(
            { dialect: 'postgres', url: 'postgres://postgres@127.0.0.1:1/nowhere' },
            { poolSize: 1 },
          )
        : undefined;
    afterAll(async () => {
      await broken?.close();
    });

    it('/readyz answers 503 unavailable without details when the database is unreachable', async () => {
      const db = broken?.db ?? (await closedSqlite());
      const app = buildApp({ ...h.deps, db });
      const res = await app.request('/readyz');
      const text = await res.text();
      const parsed = { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
      expectApiError(parsed, 503, 'unavailable');
      const notes = await app.request('/v1/notes', {
        headers: { authorization: `Bearer svc_sk_live_${'A'.repeat(32)}` },
      });
      const notesText = await notes.text();
      expectApiError({
        status: notes.status,
        headers: notes.headers,
        text: notesText,
        body: JSON.parse(notesText),
      });
      expect([500, 503]).toContain(notes.status);
      expect(notesText).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|destroyed|driver/i);
    });

    it('a failing query answers 500 internal_error without SQL, stack or table names', async () => {
      const t = await h.tenant();
      await sql`ALTER TABLE note_tags RENAME TO note_tags_gone`.execute(h.db.db);
      try {
        const res = await h.request('GET', '/v1/notes?tag=x', { key: t.liveKey });
        expectApiError(res, 500, 'internal_error');
        expect(res.text).not.toMatch(/note_tags|no such table|does not exist/i);
      } finally {
        await sql`ALTER TABLE note_tags_gone RENAME TO note_tags`.execute(h.db.db);
      }
    });
  });
}

/** A SQLite handle that has been closed: every query on it fails. */
async function closedSqlite() {
  const { createTestDatabase } = await import('../helpers/dialects.ts');
  const db = await createTestDatabase('sqlite');
  await db.destroy();
  return db.db;
}
