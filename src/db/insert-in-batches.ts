/** Rows per INSERT: far below SQLite's and PostgreSQL's limits on bound parameters. */
export const INSERT_BATCH = 500;

/** Runs `insert` on consecutive slices of `rows`, one statement each of at most `size` rows. */
export async function insertInBatches<T>(
  rows: readonly T[],
  insert: (batch: T[]) => Promise<unknown>,
  size = INSERT_BATCH,
): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
}
