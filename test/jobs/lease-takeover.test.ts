import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childEnv, freePort, stopChild, waitForReady } from '../../bench/lib/child-server.ts';
import { collectOutput } from '../cli/cli-process.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';
import { verboseJson } from '../processing/openai-server.ts';
import { childProcessSettings, useOpenAiServer } from '../processing/use-openai-server.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { tempDataDir, upload } from '../recordings/helpers.ts';

/**
 * Fast recovery with the default lease (JOB_LEASE_SECONDS=30, renewed every 10 s): a server killed with SIGKILL
 * in the middle of a job leaves it `running` under a lease nobody renews; another server takes it over once the
 * lease has run out, within about 30 s, and finishes the note. The takeover time is printed, not asserted.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/minutes.js');

interface Child {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function startServe(settings: Record<string, string>): Promise<Child> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', ...settings }),
  });
  const output = collectOutput(child);
  return { child, url: `http://127.0.0.1:${port}`, output: output.all };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const openai = useOpenAiServer();
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });

    it('a server killed with SIGKILL mid-job: another one takes the job over within about 30 s', async () => {
      // The first transcription never answers: the first server is inside the job when it dies.
      openai.onTranscription((_, i) =>
        i === 0 ? { hang: true } : { json: verboseJson([['A', 0, 5, "I'll send the budget by Friday."]]) },
      );
      const t = await h.tenant();
      const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(2), filename: 'review.wav' } });
      expect(res.status).toBe(202);
      const noteId = res.body.note_id as string;

      // JOB_LEASE_SECONDS: the default.
      const settings = childProcessSettings(h.db.database, dataDir, openai, {
        TRANSCRIBE_TIMEOUT_MS: '600000',
        WORKER_POLL_MS: '200',
        LOG_LEVEL: 'warn',
      });
      const first = await startServe(settings);
      let second: Child | undefined;
      try {
        await openai.waitForTranscriptions(1, 60_000).catch((err: Error) => {
          throw new Error(`${err.message}\n${first.output()}`);
        });
        const running = await h.db.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
        expect(running).toMatchObject({ status: 'running', attempts: 1 });
        expect(running.locked_by).toContain(`/${first.child.pid}/`);

        // The second server is up before the first dies, as in a deployment of two.
        second = await startServe(settings);
        await waitForReady(second.url, second.child);

        const exited = new Promise((resolve) => first.child.once('exit', resolve));
        first.child.kill('SIGKILL');
        await exited;
        const killedAt = Date.now();

        const secondPid = second.child.pid;
        await until(
          'the second server to take the job over',
          async () => {
            const job = await h.db.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
            return job.locked_by?.includes(`/${secondPid}/`) || job.status === 'done' ? job : undefined;
          },
          120_000,
        );
        const takeoverMs = Date.now() - killedAt;
        console.log(
          `${dialect}: job taken over ${(takeoverMs / 1000).toFixed(1)} s after SIGKILL (JOB_LEASE_SECONDS default)`,
        );

        const note = await until(
          'the note to be ready',
          async () => {
            const n = await h.request('GET', `/v1/notes/${noteId}`, { key: t.liveKey });
            return n.body.status === 'processing' ? undefined : n.body;
          },
          120_000,
        );
        expect(note.status).toBe('ready');
        expect(note.action_items).toContainEqual(
          expect.objectContaining({ text: 'Send the budget by Friday' }),
        );
        const job = await until(
          'the job to be done',
          async () => {
            const row = await h.db.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
            return row.status === 'done' ? row : undefined;
          },
          60_000,
        );
        expect(job.attempts).toBe(2);
      } finally {
        if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
        if (second) await stopChild(second.child);
      }
    }, 300_000);
  });
}
