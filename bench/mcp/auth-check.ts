/**
 * What an OAuth access token costs on /mcp beside an API key: the time of the check that turns the Authorization
 * header into an actor (verifyMcpCaller's two paths), in process, on each database. The token is a real one of
 * the authorization server (a registered client, a grant from the consent page's code path, an opaque access token
 * bound to <issuer>/mcp). Goal (issue 30): under 1 ms median more per call than a key.
 * Knobs: BENCH_AUTH_CHECKS (default 2000), BENCH_DATABASE_URL / TEST_DATABASE_URL for PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { createDeps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { createApiKey, verifyApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { SCOPES } from '../../src/features/api-keys/scopes.ts';
import { DbAdapter } from '../../src/features/oauth/oauth.adapter.ts';
import { insertConnection } from '../../src/features/oauth/oauth.connections.ts';
import { oauthServer } from '../../src/features/oauth/oauth.servers.ts';
import { actorOfAccessToken } from '../../src/features/oauth/oauth.verify.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { childDatabase } from '../lib/child-server.ts';

const CHECKS = Number(process.env.BENCH_AUTH_CHECKS ?? 2000);
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const ISSUER = 'https://minutes.example.com';

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function benchDialect(dialect: Dialect) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `minutes-bench-auth-${dialect}-`));
  const { env, database, drop } = await childDatabase(dialect, dataDir, {
    pgAdminUrl: PG_ADMIN_URL,
    prefix: 'minutes_bench_auth',
  });
  const config = loadConfig({
    ...env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    WORKER: 'false',
    PUBLIC_URL: ISSUER,
  });
  const deps = createDeps(config, { database: { db: database.db, dialect }, logger: createLogger('warn') });
  try {
    const account = await createAccount(deps, { email: `bench-${Date.now()}@example.com` });
    const key = (await createApiKey(deps, { accountId: account.id, mode: 'live' })).key;
    const server = await oauthServer(deps, ISSUER);
    const clientId = 'bench-client';
    await new DbAdapter(deps.db, 'Client').upsert(
      clientId,
      {
        client_id: clientId,
        client_name: 'Bench',
        redirect_uris: ['http://127.0.0.1/cb'],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'ES256',
      } as never,
      0,
    );
    const client = await server.provider.Client.find(clientId);
    const grant = new server.provider.Grant({ accountId: account.id, clientId });
    grant.addResourceScope(server.resource, SCOPES.join(' '));
    const grantId = await grant.save();
    await insertConnection(deps.db, {
      grant_id: grantId,
      account_id: account.id,
      mode: 'live',
      client_id: clientId,
      client_name: 'Bench',
      scopes: SCOPES.join(' '),
      created_at: new Date().toISOString(),
      last_used_at: null,
    });
    const accessToken = new server.provider.AccessToken({
      accountId: account.id,
      client: client!,
      grantId,
      scope: SCOPES.join(' '),
      gty: 'authorization_code',
    });
    accessToken.resourceServer = new server.provider.ResourceServer(server.resource, {
      scope: SCOPES.join(' '),
      audience: server.resource,
      accessTokenFormat: 'opaque',
      accessTokenTTL: 3600,
    });
    const token = await accessToken.save();
    if (!(await actorOfAccessToken(deps, ISSUER, token))) throw new Error('the bench token does not verify');

    const keyTimes: number[] = [];
    const tokenTimes: number[] = [];
    // Interleaved, so machine noise hits both alike.
    for (let i = 0; i < CHECKS; i++) {
      let t = performance.now();
      await verifyApiKey(deps, `Bearer ${key}`);
      keyTimes.push(performance.now() - t);
      t = performance.now();
      await actorOfAccessToken(deps, ISSUER, token);
      tokenTimes.push(performance.now() - t);
    }
    keyTimes.sort((a, b) => a - b);
    tokenTimes.sort((a, b) => a - b);
    return {
      dialect,
      key: { median: quantile(keyTimes, 0.5), p90: quantile(keyTimes, 0.9) },
      token: { median: quantile(tokenTimes, 0.5), p90: quantile(tokenTimes, 0.9) },
    };
  } finally {
    await deps.close();
    await database.close();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const dialects: Dialect[] = PG_ADMIN_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const lines = [
  `Auth check on /mcp, ${CHECKS} checks each, interleaved (${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}):`,
  '| database | API key median / p90 ms | access token median / p90 ms | token − key median ms |',
  '| --- | --- | --- | --- |',
];
for (const dialect of dialects) {
  const r = await benchDialect(dialect);
  lines.push(
    `| ${r.dialect} | ${r.key.median.toFixed(3)} / ${r.key.p90.toFixed(3)} | ${r.token.median.toFixed(3)} / ` +
      `${r.token.p90.toFixed(3)} | ${(r.token.median - r.key.median).toFixed(3)} |`,
  );
}
lines.push('Goal: a token check costs under 1 ms median more than a key check.');
console.log(lines.join('\n'));
