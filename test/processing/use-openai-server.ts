import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config.ts';
import { databaseEnv, ROOT } from '../cli/cli-process.ts';
import { type OpenAiServer, startOpenAiServer } from './openai-server.ts';

/**
 * The fake provider for a suite: started in `beforeAll`, closed in `afterAll`. The answer stands in for the server
 * from the start, so a suite can hand it to `useHarness` settings that read its URL once it listens.
 */
export function useOpenAiServer(): OpenAiServer {
  let started: OpenAiServer | undefined;
  const server = () => {
    if (!started) throw new Error('the fake provider is not started yet: read it inside a hook or a test');
    return started;
  };
  beforeAll(async () => {
    started = await startOpenAiServer();
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get baseUrl() {
      return server().baseUrl;
    },
    get transcriptions() {
      return server().transcriptions;
    },
    get chats() {
      return server().chats;
    },
    onTranscription: (reply) => server().onTranscription(reply),
    onChat: (reply) => server().onChat(reply),
    waitForTranscriptions: (count, timeoutMs) => server().waitForTranscriptions(count, timeoutMs),
    close: () => server().close(),
  };
}

/**
 * Harness settings that send transcription and/or analysis to the fake provider. The base URLs are getters: the
 * harness reads its settings in its own `beforeAll`, after the provider listens.
 */
export function providerSettings(
  server: OpenAiServer,
  uses: { transcribe?: boolean; analyze?: boolean },
  settings: Record<string, string> = {},
): Record<string, string> {
  const all: Record<string, string> = {};
  for (const [use, prefix, role] of [
    [uses.transcribe, 'TRANSCRIBE', 'TRANSCRIBER'],
    [uses.analyze, 'ANALYZE', 'ANALYZER'],
  ] as const) {
    if (!use) continue;
    all[role] = 'openai';
    Object.defineProperty(all, `${prefix}_BASE_URL`, { enumerable: true, get: () => server.baseUrl });
  }
  return Object.assign(all, settings);
}

/**
 * Settings for a `minutes` child process (server or worker) on the harness's database that transcribes with the
 * fake provider, changed by `settings`.
 */
export function childProcessSettings(
  database: Config['database'],
  dataDir: string,
  server: OpenAiServer,
  settings: Record<string, string>,
): Record<string, string> {
  return {
    ...databaseEnv(database),
    DATA_DIR: dataDir,
    // The builtin embedder's cache built once for the repository: a fresh one takes 10 s or more when busy.
    MODELS_DIR: path.join(ROOT, 'data/models'),
    TRANSCRIBER: 'openai',
    TRANSCRIBE_BASE_URL: server.baseUrl,
    ...settings,
  };
}
