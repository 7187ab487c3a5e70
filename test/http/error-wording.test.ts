import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { transcriptInput } from '../../src/cli/import.command.ts';
import { EVENT_TYPES } from '../../src/features/events/events.ts';
import { zodIssueToError } from '../../src/http/validation.ts';
import { AppError } from '../../src/lib/errors.ts';
import { useHarness } from '../helpers/harness.ts';
import { callFails, useMcpEndpoint } from '../mcp/mcp-helpers.ts';

/** Zod's own wording, which must never reach a user (it reads like a stack trace, not like this API). */
const ZOD_DEFAULTS =
  /Invalid input|Too (big|small)|invalid option|expected (string|number|array|object|boolean)|received \w+|Invalid (string|ISO)/;

function messageFor(schema: z.ZodType, value: unknown, target = 'json'): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a validation failure');
  return zodIssueToError(parsed.error, target, { value }).message;
}

describe('validation messages in the house style', () => {
  const cases: [string, z.ZodType, unknown, string][] = [
    [
      'wrong type',
      z.object({ title: z.string() }),
      { title: 3 },
      "Invalid 'title': must be a string, not a number.",
    ],
    [
      'wrong type (null)',
      z.object({ n: z.number() }),
      { n: null },
      "Invalid 'n': must be a number, not null.",
    ],
    [
      'integer',
      z.object({ n: z.number().int() }),
      { n: 1.5 },
      "Invalid 'n': must be an integer, not a number.",
    ],
    [
      'string too long',
      z.object({ t: z.string().max(3) }),
      { t: 'abcd' },
      "Invalid 't': must be at most 3 characters.",
    ],
    ['empty string', z.object({ t: z.string().min(1) }), { t: '' }, "Invalid 't': must not be empty."],
    ['number too small', z.object({ n: z.number().min(1) }), { n: 0 }, "Invalid 'n': must be at least 1."],
    [
      'number above an exclusive bound',
      z.object({ n: z.number().lt(5) }),
      { n: 5 },
      "Invalid 'n': must be less than 5.",
    ],
    [
      'too many items',
      z.object({ a: z.array(z.string()).max(2) }),
      { a: ['x', 'y', 'z'] },
      "Invalid 'a': must have at most 2 items.",
    ],
    [
      'enum',
      z.object({ s: z.enum(['pending', 'completed']) }),
      { s: 'open' },
      "Invalid 's': must be one of 'pending', 'completed' (not 'open').",
    ],
    [
      'date-time',
      z.object({ at: z.iso.datetime() }),
      { at: 'yesterday' },
      "Invalid 'at': must be an ISO 8601 date-time such as 2026-11-25T10:00:00Z.",
    ],
    [
      'email',
      z.object({ e: z.email() }),
      { e: 'nope' },
      "Invalid 'e': must be an email address such as ada@example.com.",
    ],
    [
      'url',
      z.object({ u: z.url() }),
      { u: 'nope' },
      "Invalid 'u': must be an absolute URL such as https://example.com/path.",
    ],
    [
      'regex',
      z.object({ c: z.string().regex(/^\d+$/) }),
      { c: 'x' },
      "Invalid 'c': is not in the expected format.",
    ],
    [
      'multiple',
      z.object({ n: z.number().multipleOf(5) }),
      { n: 7 },
      "Invalid 'n': must be a multiple of 5.",
    ],
    [
      'union',
      z.object({ v: z.union([z.string(), z.number()]) }),
      { v: true },
      "Invalid 'v': does not match any of the accepted forms.",
    ],
    ['body', z.object({}), 'text', 'Invalid request body: must be an object, not a string.'],
  ];
  for (const [name, schema, value, expected] of cases) {
    it(name, () => {
      const message = messageFor(schema, value);
      expect(message).toBe(expected);
      expect(message).not.toMatch(ZOD_DEFAULTS);
    });
  }

  it('a missing field is parameter_missing, with or without the input at hand', () => {
    const parsed = z.object({ title: z.string() }).safeParse({});
    if (parsed.success) throw new Error('expected a failure');
    for (const error of [
      zodIssueToError(parsed.error, 'json', { value: {} }),
      zodIssueToError(parsed.error),
    ]) {
      expect(error.code).toBe('parameter_missing');
      expect(error.message).toBe("Missing required parameter 'title'.");
    }
  });

  it('a message the schema sets itself is kept', () => {
    expect(messageFor(z.object({ d: z.string().min(1, 'must name a day') }), { d: '' })).toBe(
      "Invalid 'd': must name a day.",
    );
  });

  it('an unknown key is worded for where it is read: body, query, MCP arguments or an imported file', () => {
    const schema = z.strictObject({ per_page: z.number().optional() });
    const unknown = (target: string) => messageFor(schema, { perPage: 2 }, target);
    expect(unknown('json')).toBe(
      "Unknown parameter 'perPage'. Check the spelling; unknown body fields are rejected.",
    );
    expect(unknown('query')).toMatch(/^Unknown query parameter 'perPage'/);
    expect(unknown('arguments')).toBe("Unknown argument 'perPage'.");
    expect(unknown('file')).toMatch(/^Unknown field 'perPage'\. A \.json transcript is a note body/);
    for (const target of ['arguments', 'file']) expect(unknown(target)).not.toMatch(/body fields/);
  });
});

describe('import of a JSON file with unknown fields', () => {
  it('names the field and what a JSON transcript may be, not REST body wording', () => {
    let error: unknown;
    try {
      transcriptInput('meeting.json', '{"oops": true}');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toMatch(/^Unknown field 'oops'\. A \.json transcript is a note body/);
    expect((error as AppError).message).not.toMatch(/body fields|Unknown parameter/);
  });
});

describe('REST and MCP wording', () => {
  const h = useHarness('sqlite');
  const open = useHarness('sqlite', { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
  const mcp = useMcpEndpoint(h);

  it('an unknown webhook event names the accepted event types in plain words', async () => {
    const t = await h.tenant();
    const res = await h.request('POST', '/v1/webhooks', {
      key: t.liveKey,
      body: { url: 'https://example.com/hook', events: ['note.deleted'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('events.0');
    expect(res.body.error.message).toBe(
      `Invalid 'events.0': must be one of ${EVENT_TYPES.map((e) => `'${e}'`).join(', ')} (not 'note.deleted').`,
    );
    expect(res.body.error.message).not.toMatch(ZOD_DEFAULTS);
  });

  it('with private targets allowed, an ftp:// URL is told that http:// works too', async () => {
    const t = await open.tenant();
    const res = await open.request('POST', '/v1/webhooks', {
      key: t.liveKey,
      body: { url: 'ftp://example.com/hook', events: ['note.created'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("Invalid 'url': must be an http:// or https:// URL.");
    const strict = await h.request('POST', '/v1/webhooks', {
      key: (await h.tenant()).liveKey,
      body: { url: 'ftp://example.com/hook', events: ['note.created'] },
    });
    expect(strict.body.error.message).toBe("Invalid 'url': must be an https:// URL.");
  });

  it('MCP list_notes with an unknown argument says "argument", not "body field"', async () => {
    const client = await mcp.connect((await h.tenant()).liveKey);
    const text = await callFails(client, 'list_notes', { perPage: 2 }, 'parameter_unknown');
    expect(text).toMatch(/^Unknown argument 'perPage'\./);
    expect(text).not.toMatch(/body fields/);
    expect(text).toContain('list_notes accepts only:');
  });

  it('the MCP prompt states a bad argument once', async () => {
    const client = await mcp.connect((await h.tenant()).liveKey);
    const error = await client.getPrompt({ name: 'summarize_meetings', arguments: { days: 'abc' } }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(error?.message).toMatch(/must be a whole number of days, 1–90/);
    expect(error?.message.match(/must be a whole number/g)).toHaveLength(1);
  });
});
