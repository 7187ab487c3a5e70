import type { SelectQueryBuilder } from 'kysely';

/** One page of a list: `limit` rows after skipping `offset`. */
export interface Page {
  limit: number;
  offset: number;
}

/**
 * One page of rows and the total they were paged from, read together: `select` adds the columns and the order
 * to the filtered query, and the same filtered query is counted.
 */
export async function pagedList<DB, TB extends keyof DB, O, R>(
  base: SelectQueryBuilder<DB, TB, O>,
  select: (q: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, R>,
  page: Page,
): Promise<{ rows: R[]; total: number }> {
  const [rows, total] = await Promise.all([
    select(base).limit(page.limit).offset(page.offset).execute(),
    // A generic builder cannot name the added column's type; the count is `n` on every dialect.
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow() as unknown as Promise<{
      n: number | string | bigint;
    }>,
  ]);
  return { rows: rows as R[], total: Number(total.n) };
}
