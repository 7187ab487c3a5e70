import { IMPORT_JOB, importRunJob } from '../features/imports/import-run.job.ts';
import { REINDEX_NOTE_JOB, reindexNoteJob } from '../features/notes/reindex-note.job.ts';
import { PROCESS_NOTE_JOB, processNoteJob } from '../features/processing/process-note.job.ts';
import type { JobCatalog } from './define-job.ts';

/** Every job type the workers run: type → payload schema and handler. */
export const JOB_CATALOG: JobCatalog = {
  [PROCESS_NOTE_JOB]: processNoteJob,
  [REINDEX_NOTE_JOB]: reindexNoteJob,
  [IMPORT_JOB]: importRunJob,
};
