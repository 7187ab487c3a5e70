import { afterAll, beforeAll } from 'vitest';
import type { Dialect } from '../../src/db/schema.ts';
import { createTestDatabase, type TestDatabase } from './dialects.ts';

/**
 * Builds a suite's fixture once in `beforeAll` and answers the object its fields land on, so a suite reads
 * `fixture.note` in its tests instead of declaring a `let` for each value and assigning it in a hook.
 */
export function useBeforeAll<T extends object>(build: () => Promise<T>): T {
  const fixture = {} as T;
  beforeAll(async () => {
    Object.assign(fixture, await build());
  });
  return fixture;
}

/** createTestDatabase for a describe block: created before its tests, destroyed after them. */
export function useTestDatabase(dialect: Dialect): TestDatabase {
  const handle = {} as TestDatabase;
  beforeAll(async () => {
    Object.assign(handle, await createTestDatabase(dialect));
  }, 60_000);
  afterAll(async () => {
    await handle.destroy?.();
  });
  return handle;
}
