import { z } from 'zod';
import { defineJob } from '../../jobs/define-job.ts';
import { failImport, runImportStep } from './import-run.service.ts';

export { IMPORT_JOB } from './import-run.service.ts';

/** One step of an uploaded export's import; the last failed attempt ends the import as failed. */
export const importRunJob = defineJob({
  payload: z.object({ import_id: z.string().min(1), step: z.number().int().min(0) }),
  run: (payload, { deps }) => runImportStep(deps, payload),
  onFinalFailure: (payload, { db, error }) => failImport(db, payload.import_id, error),
});
