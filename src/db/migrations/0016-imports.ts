import type { Migration } from '../migrate.ts';

/**
 * Imports started through the API or the dashboard: one row per uploaded export with its progress (counts, the
 * files done so far, the step of its job chain, which fences a stale job out), and the items that failed, each
 * named. `jobs_fair` lets the job claim walk accounts in turn, so one account's backlog waits behind no other's.
 */
export const imports: Migration = {
  version: 16,
  name: 'imports',
  statements: ({ key, ts }) => [
    `CREATE TABLE imports (
      id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('running','completed','failed')),
      source TEXT,
      filename TEXT NOT NULL,
      file_kind TEXT NOT NULL CHECK (file_kind IN ('zip','json')),
      file_path TEXT NOT NULL,
      me TEXT,
      total INTEGER NOT NULL DEFAULT 0,
      imported INTEGER NOT NULL DEFAULT 0,
      skipped INTEGER NOT NULL DEFAULT 0,
      failed INTEGER NOT NULL DEFAULT 0,
      files_done INTEGER NOT NULL DEFAULT 0,
      step INTEGER NOT NULL DEFAULT 0,
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL,
      finished_at ${ts}
    )`,
    'CREATE INDEX imports_space ON imports (account_id, mode, created_at)',
    `CREATE TABLE import_errors (
      import_id ${key} NOT NULL,
      position INTEGER NOT NULL,
      item TEXT NOT NULL,
      message TEXT NOT NULL,
      PRIMARY KEY (import_id, position)
    )`,
    'CREATE INDEX jobs_fair ON jobs (status, account_id, run_at, id)',
  ],
};
