import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { insertHeldKey } from './held-key.ts';

const body = {
  transcript: 'Ana: We shipped the beta.\nBen: Great, I will write the release notes by Friday.',
};
const large = {
  transcript: Array.from({ length: 3_000 }, (_, i) => `Ana: point ${i} of the plan`).join('\n'),
};

for (const dialect of DIALECTS) {
  describe(`Idempotency-Key on POST /v1/notes (${dialect})`, () => {
    const h = useHarness(dialect);
    const post = (key: string, payload: unknown, idem?: string) =>
      h.request('POST', '/v1/notes', {
        key,
        body: payload,
        headers: idem ? { 'idempotency-key': idem } : {},
      });

    // A body over 64 KiB has its fingerprint taken in the thread that parses it; the rules are the same.
    it('has a large body over the 64 KiB that sends it to a thread', () => {
      expect(JSON.stringify(large).length).toBeGreaterThan(64 * 1024);
    });
    for (const [size, payload] of [
      ['a small body', body],
      ['a body over 64 KiB', large],
    ] as const) {
      it(`replays the first response for the same key and body, creating one note (${size})`, async () => {
        const t = await h.tenant();
        const first = await post(t.liveKey, payload, 'create-note-1');
        const second = await post(t.liveKey, payload, 'create-note-1');
        expect(first.status).toBe(202);
        expect(second.status).toBe(202);
        expect(second.body.id).toBe(first.body.id);
        expect(second.headers.get('idempotent-replayed')).toBe('true');
        const list = await h.request('GET', '/v1/notes', { key: t.liveKey });
        expect(list.body.meta.total).toBe(1);
      });

      it(`refuses the same key with a different body (422) and creates nothing more (${size})`, async () => {
        const t = await h.tenant();
        await post(t.liveKey, payload, 'k-2');
        const res = await post(t.liveKey, { ...payload, title: 'Other' }, 'k-2');
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('idempotency_key_reused');
        expect((await h.request('GET', '/v1/notes', { key: t.liveKey })).body.meta.total).toBe(1);
      });
    }

    it('answers 409 while the first request with the key is still running', async () => {
      const t = await h.tenant();
      // A request that holds the key without a stored response yet is "in flight".
      await insertHeldKey(h, t.accountId, 'k-3', { requestHash: 'in-flight', since: new Date() });
      const res = await post(t.liveKey, body, 'k-3');
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('idempotency_key_in_use');
    });

    it('takes over a key abandoned by a crashed request after five minutes', async () => {
      const t = await h.tenant();
      await insertHeldKey(h, t.accountId, 'k-4', {
        requestHash: 'crashed',
        since: new Date(Date.now() - 6 * 60_000),
      });
      expect((await post(t.liveKey, body, 'k-4')).status).toBe(202);
    });

    it('does not store failures, so a corrected request may reuse the key', async () => {
      const t = await h.tenant();
      const bad = await post(t.liveKey, { transcript: '   ' }, 'k-5');
      expect(bad.status).toBe(400);
      expect((await post(t.liveKey, body, 'k-5')).status).toBe(202);
    });

    it('scopes keys to the account and mode', async () => {
      const a = await h.tenant();
      const b = await h.tenant();
      const first = await post(a.liveKey, body, 'shared');
      const other = await post(b.liveKey, body, 'shared');
      const test = await post(a.testKey, body, 'shared');
      expect(other.status).toBe(202);
      expect(test.status).toBe(202);
      expect(new Set([first.body.id, other.body.id, test.body.id]).size).toBe(3);
    });

    it('rejects a malformed key', async () => {
      const t = await h.tenant();
      const res = await post(t.liveKey, body, 'x'.repeat(256));
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('Idempotency-Key');
    });
  });
}
