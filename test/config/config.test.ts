import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('runs on embedded defaults: port 8080, SQLite under ./data', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.database).toEqual({ dialect: 'sqlite', file: path.resolve('data', 'minutes.sqlite') });
    expect(config.rateLimitPerMinute).toBe(600);
    expect(config.webhooks).toEqual({
      allowPrivateTargets: false,
      retryScheduleSeconds: [30, 120, 480],
      maxPerAccount: 20,
      secretOverlapSeconds: 86_400,
    });
    expect(config.webhookDelivery).toMatchObject({
      leaseSeconds: 15,
      concurrency: 32,
      concurrencyPerAccount: 8,
    });
  });

  it('switches to PostgreSQL with DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/minutes' });
    expect(config.database).toEqual({ dialect: 'postgres', url: 'postgres://u@db:5432/minutes' });
  });

  it('parses the documented settings scripts rely on', () => {
    const config = loadConfig({
      PORT: '9000',
      DATA_DIR: '/tmp/minutes-x',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOKS_RETRY_SCHEDULE: '1, 2,4',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    expect(config.port).toBe(9000);
    expect(config.database).toEqual({ dialect: 'sqlite', file: '/tmp/minutes-x/minutes.sqlite' });
    expect(config.webhooks).toMatchObject({
      allowPrivateTargets: true,
      retryScheduleSeconds: [1, 2, 4],
      maxPerAccount: 20,
    });
    expect(config.rateLimitPerMinute).toBe(0);
  });

  it('names every bad variable with its value and what is wrong, in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', WEBHOOKS_RETRY_SCHEDULE: '1,,2' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT="eighty"/);
    expect(message).toMatch(/DATABASE_URL="mysql:\/\/x": must start with postgres/);
    expect(message).toMatch(/WEBHOOKS_RETRY_SCHEDULE="1,,2": must be comma-separated seconds/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).port).toBe(8080);
  });
});
