import type { Mode } from '../db/schema.ts';

/**
 * A data space: one account's live or test data. Every repository query is scoped to one, so a key never reads
 * or writes another account's (or the other mode's) rows.
 */
export interface Space {
  accountId: string;
  mode: Mode;
}

/** The space an authenticated caller (API key, dashboard session, CLI) works in. */
export const spaceOf = (actor: { accountId: string; mode: Mode }): Space => ({
  accountId: actor.accountId,
  mode: actor.mode,
});
