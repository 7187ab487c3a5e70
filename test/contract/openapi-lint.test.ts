import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json as JsonParser } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { parse as parseYaml } from '@stoplight/yaml';
import { describe, expect, it } from 'vitest';
import { ROOT, runProcess } from '../cli/cli-process.ts';
import { useHarness } from '../helpers/harness.ts';
import { fetchOpenApiDocument } from '../helpers/routes.ts';

/**
 * The served document passes both linters API users reach for, with the repository's own configuration files
 * (redocly.yaml, .spectral.yaml): no errors and no warnings. A rule may only be turned off in those files with a
 * written reason above it. Redocly runs as its CLI (about 2 s); Spectral programmatically, as its CLI spends
 * ten seconds bundling its ruleset.
 */
const PUBLIC_URL = 'https://minutes.acme.test';

describe('OpenAPI document lint', () => {
  const h = useHarness('sqlite', { PUBLIC_URL });

  it('Redocly (recommended): no errors, no warnings', async () => {
    const doc = await fetchOpenApiDocument(h.app);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      fs.writeFileSync(file, JSON.stringify(doc));
      const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
      const run = await runProcess(
        process.execPath,
        [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'],
        {
          cwd: ROOT,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      );
      const report = JSON.parse(run.stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string; location: { pointer?: string }[] }[];
      };
      const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
      expect(run.code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('Spectral (spectral:oas): no errors, no warnings; every rule turned off has its reason written', async () => {
    const source = fs.readFileSync(path.join(ROOT, '.spectral.yaml'), 'utf8');
    const config = parseYaml(source) as { extends: string[]; rules?: Record<string, string> };
    expect(config.extends).toEqual(['spectral:oas']);
    const rules = config.rules ?? {};
    for (const rule of Object.keys(rules)) {
      // A comment of at least one full sentence directly above the rule.
      const above = source.split(`\n  ${rule}:`)[0]!.split('\n').reverse();
      const comment = above.slice(
        0,
        above.findIndex((line) => !line.trim().startsWith('#')),
      );
      expect(comment.join(' ').length, `reason for turning off ${rule}`).toBeGreaterThan(60);
    }

    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas as never], rules: rules as never });
    const doc = await fetchOpenApiDocument(h.app);
    const results = await spectral.run(new Document(JSON.stringify(doc, null, 1), JsonParser));
    const problems = results
      .filter((r) => r.severity <= 1) // 0 error, 1 warning
      .map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
    expect(problems).toEqual([]);
  }, 60_000);

  it('servers names PUBLIC_URL when set, the server the document came from otherwise', async () => {
    const doc = (await fetchOpenApiDocument(h.app)) as unknown as { servers: { url: string }[] };
    expect(doc.servers.map((s) => s.url)).toEqual([PUBLIC_URL]);
  });
});

describe('OpenAPI document without PUBLIC_URL', () => {
  const h = useHarness('sqlite');
  it('has a relative server', async () => {
    const doc = (await fetchOpenApiDocument(h.app)) as unknown as { servers: { url: string }[] };
    expect(doc.servers.map((s) => s.url)).toEqual(['/']);
  });
});

describe('OpenAPI document for generators', () => {
  const h = useHarness('sqlite');
  it('has a unique operationId per operation and webhook, top-level tags with descriptions, a license', async () => {
    const doc = (await fetchOpenApiDocument(h.app)) as unknown as {
      info: { license?: { name: string } };
      tags: { name: string; description?: string }[];
      paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
      webhooks: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>>;
    };
    expect(doc.info.license?.name).toBe('MIT');
    const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((item) =>
      Object.values(item),
    );
    const ids = operations.map((o) => o.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['listNotes', 'getNote', 'searchNotes', 'createWebhook']));
    const tagNames = doc.tags.map((t) => t.name);
    expect(doc.tags.every((t) => (t.description ?? '').length > 20)).toBe(true);
    for (const o of Object.values(doc.paths).flatMap((item) => Object.values(item)))
      expect(tagNames).toEqual(expect.arrayContaining(o.tags ?? ['(none)']));
    expect(Object.keys(doc.webhooks).sort()).toEqual(
      [
        'action_item.created',
        'note.created',
        'note.failed',
        'note.processed',
        'recording.ready',
        'webhook.test',
      ].sort(),
    );
  });
});
