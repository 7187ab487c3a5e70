import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config.ts';
import { collectOutput } from '../cli/cli-process.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { eventsOf, tempDataDir, upload } from '../recordings/helpers.ts';
import { verboseJson } from './openai-server.ts';
import { childProcessSettings, useOpenAiServer } from './use-openai-server.ts';

/**
 * "Killing the server mid-processing loses nothing": a real `minutes worker` process is killed with SIGKILL
 * while its job is inside the transcription call; a second worker process takes the job over once the lease
 * has expired and the note ends ready, with every event exactly once and in order.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/minutes.js');

const TRANSCRIPT = verboseJson([
  ['A', 0, 5, 'Welcome to the launch review, the budget is the main topic today.'],
  ['B', 5, 11, 'The launch budget is over plan because the venue cost more than expected.'],
  ['A', 11, 16, 'Can you send the revised budget to finance by Friday?'],
  ['B', 16, 18, 'Sure.'],
  ['B', 18, 24, "I'll also book the review room for next Tuesday."],
]);

interface Worker {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `node bin/minutes.js worker` with only the given settings (none inherited from this process). */
function startWorkerProcess(settings: Record<string, string>): Worker {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!(name in ConfigSchema.shape)) env[name] = value;
  const child = spawn(process.execPath, [BIN, 'worker'], { cwd: ROOT, env: { ...env, ...settings } });
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: output.all, exited };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const server = useOpenAiServer();
    const workers: Worker[] = [];
    afterEach(async () => {
      for (const w of workers.splice(0)) {
        if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
        await w.exited;
      }
    });
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });

    it('a worker killed with SIGKILL mid-transcription: the next one finishes the note, events once', async () => {
      // The first transcription request never gets an answer: the worker is inside the job when it dies.
      server.onTranscription((_, i) => (i === 0 ? { hang: true } : { json: TRANSCRIPT }));
      const t = await h.tenant();
      const res = await upload(h, {
        key: t.liveKey,
        file: { bytes: wavFile(2), filename: 'review.wav' },
        fields: [['created_at', '2026-11-23T09:00:00Z']],
      });
      expect(res.status).toBe(202);
      const noteId = res.body.note_id as string;

      const settings = childProcessSettings(h.db.database, dataDir, server, {
        TRANSCRIBE_TIMEOUT_MS: '120000',
        JOB_LEASE_SECONDS: '2',
        WORKER_POLL_MS: '50',
        LOG_LEVEL: 'info',
      });
      const first = startWorkerProcess(settings);
      workers.push(first);
      await server.waitForTranscriptions(1, 30_000).catch((err: Error) => {
        throw new Error(`${err.message}\n${first.output()}`);
      });
      const running = await h.db.db.selectFrom('jobs').selectAll().where('status', '=', 'running').execute();
      expect(running).toHaveLength(1);
      expect(running[0]!).toMatchObject({ attempts: 1 });
      expect(running[0]!.locked_by).toContain(`/${first.child.pid}/`);

      first.child.kill('SIGKILL');
      await first.exited;
      expect(first.child.signalCode).toBe('SIGKILL');
      const note = async () =>
        (await h.request('GET', `/v1/notes/${noteId}`, { key: t.liveKey })).body as Record<string, any>;
      expect((await note()).status).toBe('processing');

      const second = startWorkerProcess(settings);
      workers.push(second);
      const done = await until('the note to be ready', async () => {
        const n = await note();
        return n.status === 'processing' ? undefined : n;
      }).catch((err: Error) => {
        throw new Error(`${err.message}\n${second.output()}`);
      });

      expect(done.status).toBe('ready');
      expect(done.transcript).toContain('Speaker 2: The launch budget is over plan');
      expect(done.action_items.length).toBeGreaterThanOrEqual(2);
      expect(done.action_items).toContainEqual(
        expect.objectContaining({ text: 'Send the revised budget to finance by Friday', due: '2026-11-27' }),
      );
      expect(server.transcriptions).toHaveLength(2);

      // The job ends after the note is ready: it indexes the note for search last.
      const job = await until('the job to be done', async () => {
        const row = await h.db.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
        return row.status === 'done' ? row : undefined;
      });
      expect(job).toMatchObject({ status: 'done', attempts: 2 });
      expect(job.locked_by).toBeNull();

      // Each event once, in order; one action_item.created per stored item.
      const events = await eventsOf(h, t.accountId);
      expect(events.map((e) => e.type)).toEqual([
        'recording.ready',
        'note.created',
        ...done.action_items.map(() => 'action_item.created'),
        'note.processed',
      ]);
      expect(events.slice(2, -1).map((e) => e.data.id)).toEqual(done.action_items.map((a: any) => a.id));
      const stored = await h.db.db
        .selectFrom('action_items')
        .select('id')
        .where('note_id', '=', noteId)
        .execute();
      expect(stored).toHaveLength(done.action_items.length);
    }, 300_000);
  });
}
