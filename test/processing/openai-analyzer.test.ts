import { beforeEach, describe, expect, it } from 'vitest';
import { analyzeTranscript } from '../../src/features/processing/analyze-builtin.ts';
import { ANALYSIS_JSON_SCHEMA } from '../../src/features/processing/providers/openai-analyzer.ts';
import { forgetProviderFacts } from '../../src/features/processing/providers/structured-chat.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { chatCompletion } from './openai-server.ts';
import { providerSettings, useOpenAiServer } from './use-openai-server.ts';

const MAX_ATTEMPTS = 3;
const CREATED_AT = '2026-11-23T09:00:00.000Z';
const SEGMENTS = [
  { speaker: 'S1', start_ms: 0, end_ms: 5000, text: 'Welcome, this is the launch planning meeting.' },
  {
    speaker: 'S2',
    start_ms: 5000,
    end_ms: 12000,
    text: 'The launch budget is over plan because the venue cost more.',
  },
  { speaker: 'S1', start_ms: 12000, end_ms: 18000, text: 'Important: we move the launch event online.' },
  {
    speaker: 'S2',
    start_ms: 18000,
    end_ms: 25000,
    text: "I'll send the revised budget to finance by Friday.",
  },
];
const SPEAKERS = [
  { label: 'S1', name: 'Alice Chen' },
  { label: 'S2', name: 'Bob Smith' },
];

const GOOD = {
  title: 'Launch budget and moving the event online',
  summary:
    'The launch budget is over plan. The team moves the launch event online. Bob sends a revised budget.',
  action_items: [
    { text: 'Send the revised budget to finance', assignee: 'Bob Smith', due: '2026-11-27' },
    { text: 'Book an online event platform', assignee: null, due: null },
  ],
  highlights: [
    { segment: 2, text: 'The launch event moves online.' },
    { segment: 99, text: 'A line that does not exist.' },
  ],
};

async function post(h: Harness, key: string) {
  const res = await h.request('POST', '/v1/notes', {
    key,
    body: { segments: SEGMENTS, speakers: SPEAKERS, created_at: CREATED_AT },
  });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

async function note(h: Harness, key: string, id: string) {
  return (await h.request('GET', `/v1/notes/${id}`, { key })).body;
}

/** What the builtin analyzer makes of the same transcript: the fallback. */
const BUILTIN = analyzeTranscript({ segments: SEGMENTS, speakers: SPEAKERS, createdAt: CREATED_AT });

function expectBuiltin(n: any) {
  expect(n.status).toBe('ready');
  expect(n.title).toBe(BUILTIN.title);
  expect(n.summary).toBe(BUILTIN.summary);
  expect(n.action_items.map((a: any) => ({ text: a.text, assignee: a.assignee, due: a.due }))).toEqual(
    BUILTIN.action_items.map((a) => ({ text: a.text, assignee: a.assignee, due: a.due })),
  );
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const server = useOpenAiServer();
    const h = useHarness(
      dialect,
      providerSettings(
        server,
        { analyze: true },
        {
          ANALYZE_API_KEY: 'sk-test-analyze',
          ANALYZE_MODEL: 'llama3.1:8b',
          ANALYZE_TIMEOUT_MS: '5000',
          JOB_RETRY_BASE_SECONDS: '0',
          JOB_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
        },
      ),
    );
    beforeEach(async () => {
      await h.db.db.deleteFrom('jobs').execute();
      server.chats.length = 0;
      forgetProviderFacts();
    });

    it('asks for a strict JSON-schema answer and uses the validated result', async () => {
      server.onChat(() => ({ json: chatCompletion(JSON.stringify(GOOD)) }));
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      expect(await runDueJobs(h.deps)).toBe(1);

      expect(server.chats).toHaveLength(1);
      const sent = server.chats[0]!;
      expect(sent.authorization).toBe('Bearer sk-test-analyze');
      expect(sent.body).toMatchObject({
        model: 'llama3.1:8b',
        temperature: 0,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'meeting_notes', strict: true, schema: ANALYSIS_JSON_SCHEMA },
        },
      });
      const user = sent.body.messages.find((m: any) => m.role === 'user').content as string;
      expect(user).toContain('Meeting date: 2026-11-23 (Monday).');
      expect(user).toContain("[3] Bob Smith: I'll send the revised budget to finance by Friday.");

      const n = await note(h, t.liveKey, id);
      expect(n).toMatchObject({ status: 'ready', title: GOOD.title, summary: GOOD.summary });
      expect(n.action_items).toEqual([
        {
          id: expect.any(String),
          text: 'Send the revised budget to finance',
          assignee: 'Bob Smith',
          due: '2026-11-27',
          status: 'pending',
        },
        { id: expect.any(String), text: 'Book an online event platform', status: 'pending' },
      ]);
      // The highlight of a line that does not exist is dropped; the other sits at its line's start.
      expect(n.highlights).toEqual([
        { id: expect.any(String), timestamp_ms: 12000, text: 'The launch event moves online.' },
      ]);
    });

    it('drops values that break the API rules (a due that is no date, a control character in a name)', async () => {
      server.onChat(() => ({
        json: chatCompletion(
          JSON.stringify({
            ...GOOD,
            title: `${'Very long title '.repeat(10)}end`,
            action_items: [{ text: 'Call the venue', assignee: 'Bob\u0007', due: '2026-02-30' }],
          }),
        ),
      }));
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      await runDueJobs(h.deps);
      const n = await note(h, t.liveKey, id);
      expect(n.title.length).toBeLessThanOrEqual(80);
      expect(n.title).toMatch(/^Very long title/);
      expect(n.action_items).toEqual([{ id: expect.any(String), text: 'Call the venue', status: 'pending' }]);
    });

    it.each([
      ['content that is not JSON', () => chatCompletion('Here are your notes: the budget is over.')],
      ['JSON missing fields', () => chatCompletion(JSON.stringify({ title: 'Only a title' }))],
      ['fields of the wrong type', () => chatCompletion(JSON.stringify({ ...GOOD, action_items: 'none' }))],
      ['an output cut off by the length limit', () => chatCompletion('{"title": "Launch', 'length')],
      ['an "Untitled" title', () => chatCompletion(JSON.stringify({ ...GOOD, title: 'Untitled' }))],
    ])('asks once more, then falls back to the builtin analyzer for %s', async (_, answer) => {
      server.onChat(() => ({ json: answer() }));
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      expect(await runDueJobs(h.deps)).toBe(1);
      // The repair request shows the model its answer and what was wrong with it.
      expect(server.chats).toHaveLength(2);
      const repair = server.chats[1]!.body.messages;
      expect(repair.at(-2).role).toBe('assistant');
      expect(repair.at(-1).content).toMatch(/^That answer cannot be used: /);
      expectBuiltin(await note(h, t.liveKey, id));
    });

    it('falls back at once for a body that is not a chat completion', async () => {
      server.onChat(() => ({ json: { result: 'ok' } }));
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(server.chats).toHaveLength(1);
      expectBuiltin(await note(h, t.liveKey, id));
    });

    it('uses a repaired answer when the second one validates', async () => {
      server.onChat((_, i) => ({
        json: chatCompletion(i === 0 ? JSON.stringify({ title: 'Only a title' }) : JSON.stringify(GOOD)),
      }));
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      await runDueJobs(h.deps);
      expect(server.chats).toHaveLength(2);
      expect((await note(h, t.liveKey, id)).title).toBe(GOOD.title);
    });

    it('falls back at once when the provider refuses the request (401), without retrying', async () => {
      server.onChat(() => ({ status: 401, json: { error: { message: 'invalid key' } } }));
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(server.chats).toHaveLength(1);
      expectBuiltin(await note(h, t.liveKey, id));
    });

    it('retries a request while the provider is unavailable, and uses its answer once it is back', async () => {
      server.onChat((_, i) =>
        i < 2
          ? { status: 503, json: { error: { message: 'busy' } } }
          : { json: chatCompletion(JSON.stringify(GOOD)) },
      );
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      // The request's own retries (with backoff) get the answer within the job's first attempt.
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(server.chats).toHaveLength(3);
      expect((await note(h, t.liveKey, id)).title).toBe(GOOD.title);
    });

    it('on the last attempt settles for the builtin result instead of failing the note', async () => {
      server.onChat(() => ({ status: 503, json: { error: { message: 'busy' } } }));
      const t = await h.tenant();
      const id = await post(h, t.liveKey);
      expect(await runDueJobs(h.deps)).toBe(MAX_ATTEMPTS);
      // Three tries of the request in each attempt.
      expect(server.chats).toHaveLength(MAX_ATTEMPTS * 3);
      expectBuiltin(await note(h, t.liveKey, id));
    });
  });
}
