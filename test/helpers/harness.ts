import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Dialect, Mode } from '../../src/db/schema.ts';
import { createDeps, type Deps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { createApiKey, revokeApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase, type TestDatabase } from './dialects.ts';
import { checkResponseAgainstOpenApi } from './openapi-check.ts';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Raw body sent as is (with its own content-type header, or none). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Tenant {
  accountId: string;
  email: string;
  liveKey: string;
  testKey: string;
  /** A key of this account with only these scopes. */
  keyWithScopes(scopes: string[], mode?: Mode): Promise<string>;
  revokedKey(mode?: Mode): Promise<string>;
  expiredKey(mode?: Mode): Promise<string>;
}

export interface Harness {
  dialect: Dialect;
  db: TestDatabase;
  deps: Deps;
  app: ReturnType<typeof buildApp>;
  /** A fresh account with one live and one test key: every test gets its own tenant. */
  tenant(): Promise<Tenant>;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
}

/**
 * Where every harness keeps the sentence model's built ONNX file, also when a test gives DATA_DIR a fresh
 * folder: building it again costs seconds of CPU in a low-priority thread, which on a busy machine outlasts a
 * test's timeout (test/search/minilm.test.ts and test/cli/serve.test.ts test the build itself).
 */
const SHARED_MODELS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/models');

/**
 * Sets up one database of the dialect and one app for the enclosing describe block.
 * Every response is checked against the OpenAPI document the app serves.
 */
export function useHarness(dialect: Dialect, env: Record<string, string> = {}): Harness {
  const h = { dialect } as Harness;
  beforeAll(async () => {
    h.db = await createTestDatabase(dialect);
    const config = loadConfig({
      RATE_LIMIT_PER_MINUTE: '0',
      WORKER: 'false',
      MODELS_DIR: SHARED_MODELS_DIR,
      ...env,
    });
    config.database = h.db.database;
    h.deps = createDeps(config, {
      database: { db: h.db.db, dialect },
      logger: createLogger(process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'silent'),
    });
    h.app = buildApp(h.deps);
  }, 60_000);
  afterAll(async () => {
    await h.deps?.close();
    await h.db?.destroy();
  });

  h.tenant = async () => {
    const email = `user-${randomBase62(12).toLowerCase()}@example.com`;
    const account = await createAccount(h.deps, { email });
    const key = async (mode: Mode, scopes?: string[], expiresAt?: string) =>
      (await createApiKey(h.deps, { accountId: account.id, mode, scopes, expiresAt })).key;
    return {
      accountId: account.id,
      email,
      liveKey: await key('live'),
      testKey: await key('test'),
      keyWithScopes: (scopes, mode = 'live') => key(mode, scopes),
      revokedKey: async (mode = 'live') => {
        const created = await createApiKey(h.deps, { accountId: account.id, mode });
        await revokeApiKey(h.deps, created.id);
        return created.key;
      },
      expiredKey: async (mode = 'live') => {
        const created = await createApiKey(h.deps, {
          accountId: account.id,
          mode,
          expiresAt: new Date(Date.now() + 1000).toISOString(),
        });
        // Expire it in the past directly: the API refuses to create keys that are already expired.
        await h.db.db
          .updateTable('api_keys')
          .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
          .where('id', '=', created.id)
          .execute();
        return created.key;
      },
    };
  };

  h.request = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: RequestInit['body'];
    if (options.raw !== undefined) body = options.raw as RequestInit['body'];
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await h.app.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    await checkResponseAgainstOpenApi(h.app, {
      method,
      path,
      status: res.status,
      body: parsed,
      contentType: res.headers.get('content-type'),
    });
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };
  return h;
}
