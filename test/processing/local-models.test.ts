import { beforeEach, describe, expect, it } from 'vitest';
import { forgetProviderFacts } from '../../src/features/processing/providers/structured-chat.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { fakeModel, type ModelProfile } from './fake-model.ts';
import { countPromptTokens } from './openai-server.ts';
import { providerSettings, useOpenAiServer } from './use-openai-server.ts';

/**
 * ANALYZER=openai against the servers self-hosters run, each a real local HTTP server behaving like it
 * (fake-model.ts): llama.cpp's and vLLM's 400 on a prompt over the window, Ollama cutting it silently, a server
 * without `json_schema`, a model that wraps its JSON, one that hangs. Every note must come out whole.
 */

const CREATED_AT = '2026-11-23T09:00:00.000Z';
const SPEAKERS = [
  { label: 'S1', name: 'Alice Chen' },
  { label: 'S2', name: 'Bob Smith' },
  { label: 'S3', name: 'Chandra Rao' },
  { label: 'S4', name: 'Dana Ortiz' },
];
const FILLER =
  'budget venue launch customers design review numbers quarter plan hiring roadmap feedback timeline release support marketing partners pricing sprint backlog metrics onboarding contract legal travel'.split(
    ' ',
  );

interface Meeting {
  segments: { speaker: string; start_ms: number; end_ms: number; text: string }[];
  /** Each distinct task once, with who said it. */
  tasks: Map<string, string>;
  /** Start of every line marked "Important:". */
  highlights: number[];
}

/** `minutes` of talk, a line every 10 seconds of about 25 words, tasks (some said twice) and marked lines. */
function meeting(minutes: number, seed = 7): Meeting {
  const random = mulberry32(seed);
  const word = () => FILLER[Math.floor(random() * FILLER.length)]!;
  const segments: Meeting['segments'] = [];
  const tasks = new Map<string, string>();
  const highlights: number[] = [];
  const said: { task: string; speaker: number }[] = [];
  for (let i = 0; i < minutes * 6; i++) {
    let speaker = i % SPEAKERS.length;
    const words = Array.from({ length: 22 + Math.floor(random() * 8) }, word);
    let text = `We talked about ${words.join(' ')}.`;
    if (i % 31 === 5) {
      const task = `send the report number ${said.length} to the client`;
      said.push({ task, speaker });
      tasks.set(`Send the report number ${said.length - 1} to the client`, SPEAKERS[speaker]!.name);
      text += ` I'll ${task}.`;
    } else if (i % 31 === 20 && said.length > 1) {
      // The same task said again later, by the same person.
      const again = said[said.length - 2]!;
      speaker = again.speaker;
      text += ` I'll ${again.task}.`;
    } else if (i % 53 === 11) {
      text = `Important: decision ${highlights.length} is final. ${text}`;
      highlights.push(i * 10_000);
    }
    segments.push({
      speaker: SPEAKERS[speaker]!.label,
      start_ms: i * 10_000,
      end_ms: i * 10_000 + 9_000,
      text,
    });
  }
  return { segments, tasks, highlights };
}

async function postNote(h: Harness, key: string, m: Meeting) {
  const res = await h.request('POST', '/v1/notes', {
    key,
    body: { segments: m.segments, speakers: SPEAKERS, created_at: CREATED_AT },
  });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

async function getNote(h: Harness, key: string, id: string) {
  return (await h.request('GET', `/v1/notes/${id}`, { key })).body;
}

/** Nothing lost, nothing doubled: every task once with its assignee, every marked line at its time. */
function expectWhole(note: any, m: Meeting) {
  expect(note.status).toBe('ready');
  const items = note.action_items.map((a: any) => [a.text, a.assignee]);
  expect(items.length).toBe(m.tasks.size);
  expect(new Map(items)).toEqual(m.tasks);
  expect(note.highlights.map((x: any) => x.timestamp_ms)).toEqual(m.highlights);
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const server = useOpenAiServer();
    /** Status of every answer, in order. */
    let statuses: number[];
    /** The prompt tokens of every request, as the fake counts them. */
    let prompts: number[];
    const h = useHarness(
      dialect,
      providerSettings(
        server,
        { analyze: true },
        {
          ANALYZE_MODEL: 'llama3.1:8b',
          ANALYZE_TIMEOUT_MS: '1000',
          ANALYZE_CONTEXT_TOKENS: '8192',
          JOB_RETRY_BASE_SECONDS: '0',
          JOB_MAX_ATTEMPTS: '3',
        },
      ),
    );
    beforeEach(async () => {
      await h.db.db.deleteFrom('jobs').execute();
      server.chats.length = 0;
      forgetProviderFacts();
    });

    function serve(profile: ModelProfile) {
      statuses = [];
      prompts = [];
      const model = fakeModel(profile);
      server.onChat((req) => {
        const reply = model(req);
        statuses.push(reply.status ?? 200);
        prompts.push(countPromptTokens(req.body));
        return reply;
      });
    }

    /** A new tenant posts an eight-turn meeting and the analysis runs; answers what the checks read back. */
    const analyzeMeeting = async () => {
      const m = meeting(8);
      const t = await h.tenant();
      const id = await postNote(h, t.liveKey, m);
      await runDueJobs(h.deps);
      return { m, t, id };
    };

    it('analyses a 3-hour meeting with an 8k-context model in at most 20 requests, nothing lost or doubled', async () => {
      serve({ contextTokens: 8192, overflow: 'llamacpp' });
      const m = meeting(180);
      const t = await h.tenant();
      const id = await postNote(h, t.liveKey, m);
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(server.chats.length).toBeGreaterThan(2);
      expect(server.chats.length).toBeLessThanOrEqual(20);
      const note = await getNote(h, t.liveKey, id);
      expectWhole(note, m);
      expect(note.title).toMatch(/^Meeting in \d+ parts$/);
      // Every line of the transcript was sent in some part.
      const sent = server.chats.map((c) => c.body.messages.at(-1).content as string).join('\n');
      for (let i = 0; i < m.segments.length; i++) expect(sent).toContain(`[${i}] `);
    });

    it('sends a transcript that fits in one request, whole', async () => {
      serve({ contextTokens: 8192, overflow: 'llamacpp' });
      const { m, t, id } = await analyzeMeeting();
      expect(server.chats).toHaveLength(1);
      expect(server.chats[0]!.body.messages[1].content).not.toContain('one part of a longer meeting');
      expectWhole(await getNote(h, t.liveKey, id), m);
    });

    it.each([
      ['llama.cpp', 'llamacpp'],
      ['vLLM', 'vllm'],
      ['OpenAI', 'openai'],
    ] as const)(
      'splits further on the context error of %s, and remembers the window',
      async (_, overflow) => {
        serve({ contextTokens: 3000, overflow });
        const m = meeting(45);
        const t = await h.tenant();
        const id = await postNote(h, t.liveKey, m);
        expect(await runDueJobs(h.deps)).toBe(1);
        expect(statuses[0]).toBe(400);
        expectWhole(await getNote(h, t.liveKey, id), m);
        // The next note is cut to the window found: no request is refused.
        serve({ contextTokens: 3000, overflow });
        const next = await postNote(h, t.liveKey, meeting(30, 11));
        await runDueJobs(h.deps);
        expect(statuses.every((s) => s === 200)).toBe(true);
        expect(Math.max(...prompts)).toBeLessThanOrEqual(3000);
        expect((await getNote(h, t.liveKey, next)).status).toBe('ready');
      },
    );

    it('detects Ollama cutting a prompt silently (its usage), and analyses the meeting in smaller parts', async () => {
      serve({ contextTokens: 2048, overflow: 'ollama' });
      const m = meeting(60);
      const t = await h.tenant();
      const id = await postNote(h, t.liveKey, m);
      expect(await runDueJobs(h.deps)).toBe(1);
      expectWhole(await getNote(h, t.liveKey, id), m);
      // The first request was cut; those after it fitted.
      expect(prompts[0]).toBeGreaterThan(2048);
      expect(Math.max(...prompts.slice(1))).toBeLessThanOrEqual(2048);
    });

    it('takes a tiny prompt count for a prompt cache, not for a cut prompt', async () => {
      const model = fakeModel({ contextTokens: 8192, overflow: 'ollama' });
      server.onChat((req) => {
        const reply = model(req);
        // Ollama counts only the tokens it evaluated: a prompt it had cached counts a handful.
        (reply.json as { usage: { prompt_tokens: number } }).usage.prompt_tokens = 3;
        return reply;
      });
      const { m, t, id } = await analyzeMeeting();
      expect(server.chats).toHaveLength(1);
      expectWhole(await getNote(h, t.liveKey, id), m);
    });

    it('fails the note with a reason when the model cannot take even one part', async () => {
      serve({ contextTokens: 500, overflow: 'llamacpp' });
      const t = await h.tenant();
      const id = await postNote(h, t.liveKey, meeting(10));
      expect(await runDueJobs(h.deps)).toBe(1);
      const note = await getNote(h, t.liveKey, id);
      expect(note.status).toBe('failed');
      expect(note.failure_reason).toMatch(/context window is about 500 tokens/);
      expect(note.failure_reason).toMatch(/ANALYZE_CONTEXT_TOKENS/);
    });

    it('asks in JSON mode when the server refuses json_schema, and remembers it', async () => {
      serve({ contextTokens: 8192, overflow: 'vllm', formats: 'no-json-schema' });
      const { m, t, id } = await analyzeMeeting();
      expect(server.chats.map((c) => c.body.response_format?.type)).toEqual(['json_schema', 'json_object']);
      // The schema travels in the instructions when the format does not carry it.
      expect(server.chats[1]!.body.messages[0].content).toContain('"action_items"');
      expectWhole(await getNote(h, t.liveKey, id), m);
      server.chats.length = 0;
      await postNote(h, t.liveKey, m);
      await runDueJobs(h.deps);
      expect(server.chats.map((c) => c.body.response_format?.type)).toEqual(['json_object']);
    });

    it('asks with instructions alone when the server takes no response format', async () => {
      serve({ contextTokens: 8192, overflow: 'vllm', formats: 'none', wrap: 'prose' });
      const { m, t, id } = await analyzeMeeting();
      expect(server.chats.map((c) => c.body.response_format?.type)).toEqual([
        'json_schema',
        'json_object',
        undefined,
      ]);
      expectWhole(await getNote(h, t.liveKey, id), m);
    });

    it.each([
      ['prose', 'prose'],
      ['a code fence', 'fence'],
    ] as const)('reads JSON wrapped in %s', async (_, wrap) => {
      serve({ contextTokens: 8192, overflow: 'llamacpp', wrap });
      const { m, t, id } = await analyzeMeeting();
      expect(server.chats).toHaveLength(1);
      expectWhole(await getNote(h, t.liveKey, id), m);
    });

    it('retries a request that timed out, within the same attempt', async () => {
      const model = fakeModel({ contextTokens: 8192, overflow: 'llamacpp' });
      server.onChat((req, i) => (i === 0 ? { hang: true } : model(req)));
      const m = meeting(8);
      const t = await h.tenant();
      const id = await postNote(h, t.liveKey, m);
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(server.chats).toHaveLength(2);
      expectWhole(await getNote(h, t.liveKey, id), m);
    });
  });
}
