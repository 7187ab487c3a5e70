import { createRequire } from 'node:module';

interface ExtensionHost {
  loadExtension(file: string, entryPoint?: string): unknown;
}

/**
 * Loads the sqlite-vec extension (vec0 virtual tables, KNN) into a better-sqlite3 connection. Returns the
 * error message instead of throwing when it cannot be loaded (package missing, no build for this platform):
 * search then falls back to exact cosine over the stored embeddings and says so at start.
 */
export function loadVectorExtension(
  sqlite: ExtensionHost,
): { loaded: true } | { loaded: false; reason: string } {
  try {
    const require = createRequire(import.meta.url);
    const sqliteVec = require('sqlite-vec') as { getLoadablePath(): string };
    sqlite.loadExtension(sqliteVec.getLoadablePath());
    return { loaded: true };
  } catch (err) {
    return { loaded: false, reason: err instanceof Error ? err.message : String(err) };
  }
}
