import type { Deps } from '../../deps.ts';
import { sweepExpiredOAuthRecords } from '../oauth/oauth.records.ts';
import { purgeExpired } from './purge-expired.ts';
import { purgeOrphanAudio } from './purge-orphan-audio.ts';

/** How often a worker process purges expired copies; the first pass runs shortly after start. */
const SWEEP_EVERY_MS = 3_600_000;
const FIRST_SWEEP_MS = 30_000;

export interface RetentionSweeper {
  /** Stops the timer; resolves once a pass in progress has finished. */
  stop(): Promise<void>;
}

/** Runs purgeExpired, the OAuth records' sweep and purgeOrphanAudio every hour in the background; a failed pass is logged and retried at the next. */
export function startRetentionSweeper(
  deps: Deps,
  options: { everyMs?: number; firstMs?: number } = {},
): RetentionSweeper {
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const pass = async () => {
    try {
      const counts = await purgeExpired(deps.db, deps.config.retention);
      if (counts.events || counts.deliveries || counts.idempotencyKeys || counts.signIns) {
        deps.logger.info(
          counts,
          'retention: purged expired events, deliveries, idempotency keys and sign-in records',
        );
      }
      // Expired OAuth codes, tokens and interactions are already refused; this only reclaims their rows.
      const oauthRecords = await sweepExpiredOAuthRecords(deps.db);
      if (oauthRecords) deps.logger.info({ oauthRecords }, 'retention: purged expired OAuth records');
      const audioFiles = await purgeOrphanAudio(deps);
      if (audioFiles)
        deps.logger.info({ audioFiles }, 'retention: removed audio files no recording refers to');
    } catch (err) {
      deps.logger.warn({ err }, 'retention: purge failed; retrying at the next pass');
    }
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = undefined;
        schedule(options.everyMs ?? SWEEP_EVERY_MS);
      });
    }, ms);
    timer.unref();
  };
  schedule(options.firstMs ?? FIRST_SWEEP_MS);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
