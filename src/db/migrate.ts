import { sql } from 'kysely';
import { initial } from './migrations/0001-initial.ts';
import { webhooks } from './migrations/0002-webhooks.ts';
import { search } from './migrations/0003-search.ts';
import { recordings } from './migrations/0004-recordings.ts';
import { ginFastupdateOff } from './migrations/0005-gin-fastupdate-off.ts';
import { noteTagsCreatedAt } from './migrations/0006-note-tags-created-at.ts';
import { deletionAndRetention } from './migrations/0007-deletion-and-retention.ts';
import { webhooksFairness } from './migrations/0008-webhooks-fairness.ts';
import { searchNotesBySpace } from './migrations/0009-search-notes-by-space.ts';
import { dashboardUsers } from './migrations/0010-dashboard-users.ts';
import { webhookSecretRotation } from './migrations/0011-webhook-secret-rotation.ts';
import { signInAttempts } from './migrations/0012-sign-in-attempts.ts';
import { languages } from './migrations/0013-languages.ts';
import { noteSources } from './migrations/0014-note-sources.ts';
import { oauth } from './migrations/0015-oauth.ts';
import { imports } from './migrations/0016-imports.ts';
import type { Db, Dialect } from './schema.ts';

/** Column types that differ by dialect: ids and timestamps compare bytewise on PostgreSQL too. */
export interface MigrationTypes {
  key: string;
  ts: string;
  pg: boolean;
}

export interface Migration {
  version: number;
  name: string;
  statements: (types: MigrationTypes) => string[];
}

/** Every migration, in order. Append only: a released migration never changes. */
export const MIGRATIONS: Migration[] = [
  initial,
  webhooks,
  search,
  recordings,
  ginFastupdateOff,
  noteTagsCreatedAt,
  deletionAndRetention,
  webhooksFairness,
  searchNotesBySpace,
  dashboardUsers,
  webhookSecretRotation,
  signInAttempts,
  languages,
  noteSources,
  oauth,
  imports,
];

const LOCK_ID = 7_355_608;

/**
 * Applies pending migrations (up to `upTo`, for tests of a migration: all by default) in one transaction; safe
 * to run from several processes at once.
 */
export async function migrate(db: Db, dialect: Dialect, options: { upTo?: number } = {}): Promise<number[]> {
  const pg = dialect === 'postgres';
  const types: MigrationTypes = pg
    ? { key: 'TEXT COLLATE "C"', ts: 'TEXT COLLATE "C"', pg }
    : { key: 'TEXT', ts: 'TEXT', pg };
  const applied: number[] = [];
  await db.transaction().execute(async (trx) => {
    if (pg) await sql`SELECT pg_advisory_xact_lock(${LOCK_ID})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL
    )`.execute(trx);
    const done = await sql<{ version: number }>`SELECT version FROM schema_migrations`.execute(trx);
    const have = new Set(done.rows.map((r) => Number(r.version)));
    for (const migration of MIGRATIONS) {
      if (have.has(migration.version) || migration.version > (options.upTo ?? Number.POSITIVE_INFINITY))
        continue;
      for (const statement of migration.statements(types)) await sql.raw(statement).execute(trx);
      await sql`INSERT INTO schema_migrations (version, name, applied_at)
        VALUES (${migration.version}, ${migration.name}, ${new Date().toISOString()})`.execute(trx);
      applied.push(migration.version);
    }
  });
  return applied;
}
