import pg from 'pg';
import { randomBase62 } from '../lib/ids.ts';

export interface ScratchDatabase {
  /** Connection URL of the new database (the admin URL with its database name replaced). */
  url: string;
  /** Drops the database, closing whatever connections are still open to it. */
  drop(): Promise<void>;
}

async function run(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty PostgreSQL database beside the one `adminUrl` names, for a test file or a benchmark run
 * that must not touch anything else. The name is `<prefix>_<random>`, lower case.
 */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBase62(10).toLowerCase()}`;
  await run(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
