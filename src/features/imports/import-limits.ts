import type { ExportReadLimits } from './read-export.ts';

/**
 * The largest file an export may hold: Omi's "Export All Data" is one JSON file of every conversation, parsed
 * whole in a processing thread, so this bounds that thread's memory (about four times the file).
 */
export const MAX_EXPORT_ENTRY_BYTES = 256 * 1024 * 1024;

export const EXPORT_READ_LIMITS: ExportReadLimits = { maxEntryBytes: MAX_EXPORT_ENTRY_BYTES };
