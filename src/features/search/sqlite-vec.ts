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
    const found = vectorExtensionPath();
    if ('reason' in found) return { loaded: false, reason: found.reason };
    sqlite.loadExtension(found.path);
    return { loaded: true };
  } catch (err) {
    return { loaded: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Where sqlite-vec's loadable extension is, or why it is not there (package missing, no build for this platform). */
export function vectorExtensionPath(): { path: string } | { reason: string } {
  try {
    const require = createRequire(import.meta.url);
    const sqliteVec = require('sqlite-vec') as { getLoadablePath(): string };
    return { path: sqliteVec.getLoadablePath() };
  } catch (err) {
    return { reason: err instanceof Error ? err.message : String(err) };
  }
}
