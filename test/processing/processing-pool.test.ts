import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, freePort, stopChild, waitForReady } from '../../bench/lib/child-server.ts';
import {
  createProcessingPool,
  ProcessingTimeoutError,
} from '../../src/features/processing/pool/processing-pool.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { collectOutput } from '../cli/cli-process.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

/**
 * Analysis runs in processing threads with a time budget: a thread over it is stopped and the note fails with a
 * reason its owner can read, and the API keeps answering while a hostile transcript is processed.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/minutes.js');

describe('the processing pool', () => {
  const pool = createProcessingPool({ threads: 1 });
  afterAll(() => pool.close());

  it('stops a task at its budget, and the next task gets a fresh thread', async () => {
    const started = Date.now();
    await expect(pool.spin(120_000, AbortSignal.timeout(200))).rejects.toBeInstanceOf(ProcessingTimeoutError);
    // Stopped, not waited for: far less than the two minutes the task asked for.
    expect(Date.now() - started).toBeLessThan(60_000);
    const analysis = await pool.analyze({
      segments: [
        { speaker: 'A', start_ms: 0, end_ms: 1000, text: "I'll send the budget to finance by Friday." },
      ],
      speakers: [{ label: 'A', name: 'Ana' }],
      createdAt: '2026-11-23T09:00:00.000Z',
    });
    expect(analysis.action_items).toEqual([
      { text: 'Send the budget to finance by Friday', assignee: 'Ana', due: '2026-11-27' },
    ]);
  });

  it('closing waits for the task in hand instead of stopping its thread (a model loading there would abort)', async () => {
    const own = createProcessingPool({ threads: 1 });
    await own.spin(1); // the thread is up and idle
    const spinning = own.spin(300).then(() => 'finished');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await own.close();
    await expect(spinning).resolves.toBe('finished');
  });
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: a job over its budget`, () => {
    // A budget no analysis fits in: the first attempt is also the last.
    const h = useHarness(dialect, { ANALYSIS_TIMEOUT_MS: '1', JOB_MAX_ATTEMPTS: '1' });

    it('fails the note with a reason that says the analysis took too long', async () => {
      const t = await h.tenant();
      const transcript = Array.from(
        { length: 2000 },
        (_, i) => `S${i % 3}: We need to review item ${i}.`,
      ).join('\n');
      const res = await h.request('POST', '/v1/notes', { key: t.liveKey, body: { transcript } });
      expect(res.status).toBe(202);
      await runDueJobs(h.deps);

      const note = await h.request('GET', `/v1/notes/${res.body.id}`, { key: t.liveKey });
      expect(note.body.status).toBe('failed');
      expect(note.body.failure_reason).toMatch(
        /^Analysis was stopped because it took longer than the 1 ms allowed\./,
      );
      const job = await h.db.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'failed', attempts: 1 });
      expect(job.last_error).toContain('ProcessingError: Analysis was stopped');
    });
  });
}

/** `minutes serve` as a child process with a fresh SQLite database; its first-start banner gives a live key. */
async function startServe(settings: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-pool-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: childEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      MODELS_DIR: path.join(ROOT, 'data/models'),
      LOG_LEVEL: 'warn',
      ...settings,
    }),
  });
  const output = collectOutput(child);
  const url = `http://127.0.0.1:${port}`;
  return { child, url, output: output.all, dataDir };
}

describe('a server processing a hostile transcript', () => {
  it('answers /healthz throughout, and the note of a 20 KB one-word transcript ends ready or failed', async () => {
    const server = await startServe({});
    try {
      await waitForReady(server.url, server.child);
      const key = /live key: (\S+)/.exec(server.output())?.[1];
      expect(key, server.output()).toBeDefined();
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const created = await fetch(`${server.url}/v1/notes`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ transcript: 'x'.repeat(20_000) }),
      });
      expect(created.status).toBe(202);
      const { id } = (await created.json()) as { id: string };

      // Before the fix the analysis held the event loop for hours: no /healthz answer at all.
      let answeredWhileProcessing = 0;
      let status = 'processing';
      const deadline = Date.now() + 240_000;
      while (status === 'processing') {
        if (Date.now() > deadline) throw new Error(`note still processing\n${server.output()}`);
        const health = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(30_000) });
        expect(health.status).toBe(200);
        const note = await fetch(`${server.url}/v1/notes/${id}`, {
          headers: auth,
          signal: AbortSignal.timeout(30_000),
        });
        status = ((await note.json()) as { status: string }).status;
        if (status === 'processing') answeredWhileProcessing++;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(['ready', 'failed']).toContain(status);
      console.log(`/healthz answered ${answeredWhileProcessing} times while the note was processing`);
    } finally {
      await stopChild(server.child);
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
