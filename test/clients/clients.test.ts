import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ask,
  createMinutesClient,
  importTranscript,
  missingNote,
  recentTitles,
} from '../../examples/typed-client/example.ts';
import { generateTypes, TYPES_FILE } from '../../examples/typed-client/generate.ts';
import {
  verifyWithHmac,
  verifyWithStandardWebhooks,
  verifyWithSvix,
} from '../../examples/webhook-receivers/verify.ts';
import { useHarness } from '../helpers/harness.ts';
import { serveApp } from '../helpers/serve.ts';
import { createWebhook, deliverDue, emit } from '../webhooks/fixtures.ts';
import { useReceiver } from '../webhooks/receiver.ts';

/** docs/clients.md's examples, run as written against a real server. */
describe('typed client (openapi-typescript + openapi-fetch)', () => {
  const h = useHarness('sqlite');
  let baseUrl = '';
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const server = await serveApp((req) => h.app.fetch(req));
    baseUrl = `http://127.0.0.1:${server.port}`;
    close = server.close;
  });
  afterAll(async () => {
    await close?.();
  });

  it('the committed types are what openapi-typescript makes of the served document (npm run generate:client)', async () => {
    expect(fs.readFileSync(TYPES_FILE, 'utf8')).toBe(await generateTypes());
  }, 60_000);

  it('creates, lists, searches and reads errors with typed requests and responses', async () => {
    const t = await h.tenant();
    const client = createMinutesClient(baseUrl, t.liveKey);
    const note = await importTranscript(
      client,
      'Launch sync',
      'Maya: The launch moves to March because the payment provider is late.\nLeo: I will tell the sales team.',
    );
    expect(note.id).toMatch(/^note_/);
    expect(note.status).toBe('processing');
    expect(await recentTitles(client, 'nothing-tagged-so')).toEqual([]);
    expect(Array.isArray(await ask(client, 'payment provider'))).toBe(true);
    expect(await missingNote(client)).toBe('404 resource_not_found');
  });
});

describe('webhook receivers (standardwebhooks, svix, plain HMAC) on a real delivery', () => {
  const h = useHarness('sqlite', { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
  const { receiver, pathOf, requestsTo } = useReceiver();

  for (const secret of ['a-webhook-secret-0123', 'sécret with spaces ✓ 0123']) {
    it(`all three verify it (secret ${JSON.stringify(secret)}) and reject a tampered body`, async () => {
      const t = await h.tenant();
      const path = pathOf('receivers');
      await createWebhook(h, t.liveKey, {
        url: `${receiver().url}${path}`,
        events: ['note.created'],
        secret,
      });
      const event = await emit(h, { accountId: t.accountId }, 'note.created');
      await deliverDue(h);
      const [request] = requestsTo(path);
      expect(request).toBeDefined();
      const raw = request!.raw.toString('utf8');
      for (const verify of [verifyWithStandardWebhooks, verifyWithSvix, verifyWithHmac]) {
        expect(verify(raw, request!.headers, secret).id, verify.name).toBe(event.id);
        expect(() =>
          verify(raw.replace('"note.created"', '"note.changed"'), request!.headers, secret),
        ).toThrow();
        expect(() => verify(raw, request!.headers, `${secret}x`)).toThrow();
      }
    });
  }
});
