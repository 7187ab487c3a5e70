import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig, loadEnvFile } from '../../src/config.ts';
import { ROOT } from '../cli/cli-process.ts';

describe('.env.example', () => {
  const text = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  const entries = [...text.matchAll(/^# ([A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!] as const);

  it('lists exactly the settings of the config schema, each once', () => {
    const names = entries.map(([name]) => name);
    expect([...names].sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
    expect(new Set(names).size).toBe(names.length);
  });

  it('shows each default as the value the service uses when the setting is absent', () => {
    const withValues = Object.fromEntries(entries.filter(([, value]) => value !== ''));
    const { database: _a, ...fromExample } = loadConfig(withValues);
    const { database: _b, ...defaults } = loadConfig({});
    expect(fromExample).toEqual(defaults);
    // Every setting with a default shows it; the ones without say so.
    for (const [name, value] of entries) {
      const shape = ConfigSchema.shape[name as keyof typeof ConfigSchema.shape];
      const hasDefault =
        (shape as unknown as { _zod: { def: { type: string } } })._zod.def.type === 'default';
      if (hasDefault && !['WEBHOOKS_ALLOW_HOSTS', 'MCP_ALLOWED_ORIGINS'].includes(name))
        expect(value, name).not.toBe('');
    }
  });
});

describe('.env loading', () => {
  it('the real environment wins over the file; the file over the defaults; a missing .env is no error', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-env-'));
    try {
      const file = path.join(dir, 'settings.env');
      fs.writeFileSync(file, '# comment\nPORT=9191\nDATA_DIR="/srv/minutes data"\nLOG_LEVEL=debug\n');
      const env: Record<string, string | undefined> = { ENV_FILE: file, PORT: '7000' };
      const loaded = loadEnvFile(env);
      expect(loaded).toEqual({ file, applied: ['DATA_DIR', 'LOG_LEVEL'] });
      const config = loadConfig(env);
      expect(config.port).toBe(7000);
      expect(config.dataDir).toBe('/srv/minutes data');
      expect(config.logLevel).toBe('debug');

      expect(loadEnvFile({ ENV_FILE: 'none' })).toBeUndefined();
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        expect(loadEnvFile({})).toBeUndefined();
      } finally {
        process.chdir(cwd);
      }
      expect(() => loadEnvFile({ ENV_FILE: path.join(dir, 'missing.env') })).toThrow(
        /Cannot read the settings file/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
