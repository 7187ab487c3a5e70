import { describe, expect, it } from 'vitest';
import { failNote } from '../../src/features/processing/fail-note.ts';
import { NO_TRANSCRIBER_REASON } from '../../src/features/processing/providers/transcriber.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { nowIso } from '../../src/lib/time.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { eventsOf, tempDataDir, upload } from '../recordings/helpers.ts';
import { createWebhook, deliverDue, listDeliveries, SECRET, verifySignatures } from './fixtures.ts';
import { useReceiver } from './receiver.ts';

const ENV = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_SCHEDULE: '0.2,0.4,0.8' };

/** `note.failed`: processing gave up on a note; subscribers hear it with the reason. */
for (const dialect of DIALECTS) {
  describe(`note.failed (${dialect})`, () => {
    const h = useHarness(dialect, { ...ENV, DATA_DIR: tempDataDir(), JOB_RETRY_BASE_SECONDS: '0' });
    const { receiver, pathOf, requestsTo } = useReceiver();

    it('an audio note without a transcriber emits recording.ready, note.created, then note.failed with the reason', async () => {
      const t = await h.tenant();
      const path = pathOf('failed');
      const wh = await createWebhook(h, t.liveKey, {
        url: `${receiver().url}${path}`,
        events: ['note.created', 'note.failed'],
        secret: SECRET,
      });
      const other = pathOf('not-subscribed');
      await createWebhook(h, t.liveKey, { url: `${receiver().url}${other}`, events: ['note.processed'] });
      const audio = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
      expect(audio.status).toBe(202);
      await runDueJobs(h.deps);

      const types = (await eventsOf(h, t.accountId)).map((e) => e.type);
      expect(types).toEqual(['recording.ready', 'note.created', 'note.failed']);

      await deliverDue(h);
      const received = requestsTo(path);
      expect(received.map((r) => r.headers['x-svc-event'])).toEqual(['note.created', 'note.failed']);
      const body = verifySignatures(received[1]!, SECRET) as { type: string; data: Record<string, unknown> };
      expect(body.type).toBe('note.failed');
      expect(body.data).toMatchObject({
        id: audio.body.note_id,
        failure_reason: NO_TRANSCRIBER_REASON,
        tags: [],
        highlights: 0,
      });
      expect(body.data.title).toEqual(expect.any(String));
      expect(requestsTo(other)).toEqual([]);

      const deliveries = await listDeliveries(h, t.liveKey, wh.id);
      expect(deliveries.map((d) => d.event_type).sort()).toEqual(['note.created', 'note.failed']);
    });

    it('is written once: a note that is not processing any more is not failed again', async () => {
      const t = await h.tenant();
      const note = await h.request('POST', '/v1/notes', { key: t.liveKey, body: { transcript: 'Ana: Hi.' } });
      const space = { accountId: t.accountId, mode: 'live' as const };
      // The job's final-failure hook runs inside the transaction that fails the job.
      const first = await h.deps.db
        .transaction()
        .execute((trx) => failNote(trx, space, note.body.id, 'Gave up.', nowIso()));
      const second = await failNote(h.deps.db, space, note.body.id, 'Gave up again.', nowIso());
      expect([first, second]).toEqual([true, false]);
      const failed = (await eventsOf(h, t.accountId)).filter((e) => e.type === 'note.failed');
      expect(failed).toHaveLength(1);
      const got = await h.request('GET', `/v1/notes/${note.body.id}`, { key: t.liveKey });
      expect(got.body).toMatchObject({ status: 'failed', failure_reason: 'Gave up.' });
    });

    it('can be subscribed to through the API; an unknown event type is a 400', async () => {
      const t = await h.tenant();
      const ok = await h.request('POST', '/v1/webhooks', {
        key: t.liveKey,
        body: { url: `${receiver().url}/x`, events: ['note.failed'] },
      });
      expect(ok.status).toBe(201);
      expect(ok.body.events).toEqual(['note.failed']);
      const bad = await h.request('POST', '/v1/webhooks', {
        key: t.liveKey,
        body: { url: `${receiver().url}/x`, events: ['webhook.test'] },
      });
      expect(bad.status).toBe(400);
    });
  });
}
