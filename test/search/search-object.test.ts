import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { useTestDatabase } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';

const MODELS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/models');

describe.each(DIALECTS)('search as one object of the deps (%s)', (dialect) => {
  const database = useTestDatabase(dialect);
  const config = () => ({
    ...loadConfig({ WORKER: 'false', MODELS_DIR, EMBEDDER: 'builtin' }),
    database: database.database,
  });
  const logger = createLogger('silent');

  it('shares the sentence model between live deps and closes it with the last deps.close()', async () => {
    const first = createDeps(config(), { database, logger });
    const second = createDeps(config(), { database, logger });
    const one = await first.search.engine();
    const two = await second.search.engine();
    expect(one).not.toBe(two);
    expect(one.embedder).not.toBeNull();
    expect(two.embedder).toBe(one.embedder);

    await first.close();
    // Still held by the second deps: it keeps embedding.
    const [vector] = await two.embedder!.embed(['quarterly budget review'], 'query');
    expect(vector!.length).toBe(two.embedder!.dims);

    await second.close();
    await expect(two.embedder!.embed(['after close'], 'query')).rejects.toThrow(/closed/);

    // A later deps loads the model again.
    const third = createDeps(config(), { database, logger });
    try {
      const engine = await third.search.engine();
      expect(engine.embedder).not.toBe(one.embedder);
      const [again] = await engine.embedder!.embed(['quarterly budget review'], 'query');
      expect(Array.from(again!)).toEqual(Array.from(vector!));
    } finally {
      await third.close();
    }
  });

  it('close() stops a background preparation, and readiness is per deps', async () => {
    const deps = createDeps(config(), { database, logger });
    const other = createDeps(config(), { database, logger });
    try {
      const preparation = deps.search.prepareInBackground({ after: new Promise(() => {}) });
      expect(deps.search.readiness()).toEqual({ state: 'preparing' });
      expect(other.search.readiness()).toBeUndefined();
      await deps.close();
      await expect(preparation.done).resolves.toBeUndefined();
    } finally {
      await deps.close();
      await other.close();
    }
  });
});
