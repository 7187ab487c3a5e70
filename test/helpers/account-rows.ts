import type { Db } from '../../src/db/schema.ts';

/**
 * The ids of an account's rows in `table`, read from the table itself rather than the API: what a test checks
 * when nothing may have been stored, or a deleted row must be gone and not merely hidden.
 */
export async function accountRowIds(
  db: Db,
  table: 'notes' | 'recordings',
  accountId: string,
): Promise<string[]> {
  const rows = await db.selectFrom(table).select('id').where('account_id', '=', accountId).execute();
  return rows.map((row) => row.id);
}
