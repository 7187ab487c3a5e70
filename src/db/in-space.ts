import { type Kysely, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type { Space } from '../lib/space.ts';
import type { Mode } from './schema.ts';

/** The columns that make a row one space's and name it. */
interface SpaceOwnedRow {
  id: string;
  account_id: string;
  mode: Mode;
}

/** The tables of `DB` whose rows belong to a space and have an id. */
type SpaceOwnedTable<DB> = { [T in keyof DB & string]: DB[T] extends SpaceOwnedRow ? T : never }[keyof DB &
  string];

/**
 * The condition that keeps a query to one space's rows, for `.where(inSpace(space))` on a table with
 * `account_id` and `mode` (unqualified: name the columns yourself where a join makes them ambiguous).
 */
export function inSpace(space: Space): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref('account_id')} = ${space.accountId} and ${sql.ref('mode')} = ${space.mode}`;
}

/** The row with this id in the space, or undefined: a row of another account or mode is not found. */
export function findInSpace<DB, T extends SpaceOwnedTable<DB>>(
  db: Kysely<DB>,
  table: T,
  space: Space,
  id: string,
): Promise<Selectable<DB[T]> | undefined> {
  // Kysely cannot resolve columns on a table the caller chooses; SpaceOwnedTable guarantees these exist.
  const owned = db as unknown as Kysely<{ owned: SpaceOwnedRow }>;
  return owned
    .selectFrom(table as 'owned')
    .selectAll()
    .where('id', '=', id)
    .where(inSpace(space))
    .executeTakeFirst() as Promise<Selectable<DB[T]> | undefined>;
}
