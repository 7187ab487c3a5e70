import { beforeAll } from 'vitest';

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
