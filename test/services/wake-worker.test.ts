import { describe, expect, it } from 'vitest';
import { createDeps } from '../../src/deps.ts';
import { type Actor, SCOPES } from '../../src/features/api-keys/scopes.ts';
import { createNote } from '../../src/features/notes/notes.service.ts';
import { createRecordingFromTranscript } from '../../src/features/recordings/recordings.service.ts';
import { fanOutEvents } from '../../src/features/webhooks/delivery/fan-out-events.ts';
import {
  createWebhook,
  listDeliveries,
  redeliverDelivery,
} from '../../src/features/webhooks/webhooks.service.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

/** The services that commit work for the worker wake it through their deps, whoever calls them. */
describe.each(DIALECTS)('services wake the worker (%s)', (dialect) => {
  const h = useHarness(dialect);
  const counting = () => {
    const woken = { n: 0 };
    const deps = createDeps(h.deps.config, {
      database: h.deps,
      logger: h.deps.logger,
      wakeWorker: () => woken.n++,
    });
    return { deps, woken };
  };
  const actorOf = (accountId: string): Actor => ({
    accountId,
    mode: 'live',
    scopes: new Set(SCOPES),
    keyId: 'key_test',
  });

  it('creating a note and a recording from a transcript each wake it once, after the commit', async () => {
    const { deps, woken } = counting();
    const actor = actorOf((await h.tenant()).accountId);
    await createNote(deps, actor, { transcript: 'Alice: We ship on Friday.' });
    expect(woken.n).toBe(1);
    const accepted = await createRecordingFromTranscript(deps, actor, { transcript: 'Bob: Agreed.' });
    expect(woken.n).toBe(2);
    const job = await h.db.db
      .selectFrom('jobs')
      .select('id')
      .where('payload', 'like', `%${accepted.note_id}%`)
      .executeTakeFirst();
    expect(job).toBeDefined();
  });

  it('a redelivery wakes it; reading the delivery log does not', async () => {
    const { deps, woken } = counting();
    const actor = actorOf((await h.tenant()).accountId);
    const webhook = await createWebhook(deps, actor, {
      url: 'https://example.com/hook',
      events: ['note.created'],
    });
    await createNote(deps, actor, { transcript: 'Alice: We ship on Friday.' });
    await fanOutEvents(deps.db, deps.dialect);
    const before = woken.n;
    const { data } = await listDeliveries(deps, actor, webhook.id, { page: 1, per_page: 10 });
    expect(data).toHaveLength(1);
    expect(woken.n).toBe(before);
    const again = await redeliverDelivery(deps, actor, webhook.id, data[0]!.id);
    expect(again.id).not.toBe(data[0]!.id);
    expect(woken.n).toBe(before + 1);
  });
});
