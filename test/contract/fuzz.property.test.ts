import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useBeforeAll } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type TestResponse, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { type ApiRoute, freshId, idPrefixOf, loadApiRoutes, sampleBody } from '../helpers/routes.ts';

/**
 * Hostile input at every route of the served OpenAPI document, with a key that holds every scope. Whatever
 * comes in, the API answers with a documented status below 500, well-formed JSON, the error shape on
 * failures, and (checked by the harness) a 2xx body that matches the document.
 */
const { doc, routes } = await loadApiRoutes();

const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 50);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

const HUGE = 'x'.repeat(100_001);
const HUGE_ASTRAL = '😀'.repeat(26_000);
const DEEP_ARRAY = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
const DEEP_OBJECT = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;

/** Strings that break naive code: NUL, lone surrogates, RTL overrides, astral planes, SQL, paths, huge. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF lone',
    '\u202Eevil\u202C',
    'مرحبا بالعالم',
    'שלום',
    '𝕳𝖊𝖑𝖑𝖔 😀 👩‍👩‍👧‍👦 🇩🇪',
    '\u200B\uFEFF',
    'line\nbreak\ttab\r',
    "' OR 1=1 --",
    '"; DROP TABLE notes; --',
    'NEAR(a b) OR title:x AND "',
    '*',
    '../../../../etc/passwd',
    '%00',
    '<script>alert(1)</script>',
    'NaN',
    '-0',
    '1e308',
    'Infinity',
    'null',
    'true',
    '2026-02-30',
    'pending',
    'completed',
    'segments',
    HUGE,
    HUGE_ASTRAL,
  ),
);

const nastyNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, -0, 0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 53), Number.MIN_VALUE, 1e-308),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const { value: nastyValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    nastyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 10 }), tie('value'), { maxKeys: 4 }),
  ),
}));

/** Request bodies: the valid sample with one field replaced or added, other JSON values, and raw text. */
function bodyArbitrary(route: ApiRoute): fc.Arbitrary<{ raw: string; contentType?: string }> {
  const sample = (sampleBody(route, doc) ?? {}) as Record<string, unknown>;
  const fields = [
    ...new Set([...Object.keys(sample), ...Object.keys((route.jsonBody?.properties ?? {}) as object)]),
  ];
  const json = (v: unknown) => ({ raw: JSON.stringify(v) ?? 'null' });
  const replaced = fc
    .record({ field: fields.length ? fc.constantFrom(...fields) : fc.constant('x'), value: nastyValue })
    .map(({ field, value }) => json({ ...sample, [field]: value }));
  const dropped = fields.length
    ? fc.constantFrom(...fields).map((field) => {
        const { [field]: _, ...rest } = sample;
        return json(rest);
      })
    : fc.constant(json({}));
  const extra = fc
    .record({ key: fc.string({ maxLength: 20 }), value: nastyValue })
    .map(({ key, value }) => json({ ...sample, [key]: value }));
  const deepField = fields.length
    ? fc
        .record({ field: fc.constantFrom(...fields), deep: fc.constantFrom(DEEP_ARRAY, DEEP_OBJECT) })
        .map(({ field, deep }) => ({ raw: `{${JSON.stringify(field)}: ${deep}}` }))
    : fc.constant({ raw: `{"x": ${DEEP_ARRAY}}` });
  const raw = fc.constantFrom(
    { raw: DEEP_ARRAY },
    { raw: DEEP_OBJECT },
    { raw: '{"title": NaN}' },
    { raw: '{"a": 1,}' },
    { raw: '{' },
    { raw: '' },
    { raw: 'null' },
    { raw: '[]' },
    { raw: '"just a string"' },
    { raw: '1e308' },
    { raw: '\uFEFF{}' },
    { raw: '{"a": "\\ud800"}' },
    { raw: `{"title": "${HUGE}"}` },
    { raw: JSON.stringify(sample), contentType: 'text/plain' },
    { raw: JSON.stringify(sample), contentType: 'application/x-www-form-urlencoded' },
    { raw: JSON.stringify(sample), contentType: 'application/json; charset=utf-8' },
    { raw: JSON.stringify(sample), contentType: 'APPLICATION/JSON' },
    { raw: JSON.stringify(sample), contentType: 'application/jsonx' },
  );
  return fc.oneof(replaced, dropped, extra, deepField, raw, nastyValue.map(json), fc.constant(json(sample)));
}

/** Path parameter values: valid-looking, traversal, encoded NUL, emoji, SQL, the wrong prefix, very long. */
function idArbitrary(route: ApiRoute, param: string): fc.Arbitrary<string> {
  const prefix = idPrefixOf(route, param);
  const encoded = fc
    .oneof(
      nastyString.filter((s) => s.length < 5_000),
      fc.constantFrom(
        '../',
        '..',
        '.',
        `${prefix}${'A'.repeat(24)}`,
        `${prefix}${'A'.repeat(10_000)}`,
        'x'.repeat(10_000),
        'note_😀😀😀',
        "note_' OR '1'='1",
        'ai_000000000000000000000000',
        `${prefix}\u0000`,
      ),
    )
    .map((s) => {
      try {
        return encodeURIComponent(s);
      } catch {
        return encodeURIComponent('lone-surrogate');
      }
    });
  const raw = fc.constantFrom(
    '..%2F..%2Fetc%2Fpasswd',
    '%00',
    `${prefix}%00`,
    '%',
    '%zz',
    '%C0%AF',
    '%F0%9F%98%80',
  );
  return fc.oneof(
    fc.constant(null).map(() => freshId(prefix)),
    encoded,
    raw,
  );
}

const QUERY_VALUES = [
  '-1',
  '0',
  '1',
  '1e9',
  '1000000000',
  '99999999999999999999',
  '1.5',
  ' 2',
  '0x10',
  'abc',
  '',
  'NaN',
  '2026-02-30',
  '2026-13-01',
  '2026-01-05',
  '2026-01-05T09:00:00Z',
  '2026-01-05T25:61:00Z',
  '0000-01-01',
  '9999-12-31',
  '+275760-09-13T00:00:00Z',
  'yesterday',
  'segments',
  'segments,segments',
  'all',
  'pending',
];

function queryArbitrary(route: ApiRoute): fc.Arbitrary<string> {
  const names = [
    ...route.queryParams.map((p) => p.name),
    'page',
    'per_page',
    'from',
    'to',
    'q',
    'tag',
    'status',
    'include',
    'limit',
  ];
  const entry = fc.tuple(
    fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })),
    fc.oneof(fc.constantFrom(...QUERY_VALUES), nastyString),
  );
  return fc.array(entry, { maxLength: 5 }).map((pairs) => {
    const params = new URLSearchParams();
    for (const [k, v] of pairs) {
      try {
        params.append(k, v);
      } catch {
        params.append(k, 'x');
      }
    }
    const s = params.toString();
    return s ? `?${s}` : '';
  });
}

/** Idempotency-Key values for routes that document the header: absent, reused, hostile. */
function idempotencyKeyArbitrary(route: ApiRoute): fc.Arbitrary<string | undefined> {
  const documented = (route.operation.parameters ?? []).some(
    (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
  );
  if (!documented) return fc.constant(undefined);
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom('fuzz-key-1', 'fuzz-key-2', '', ' ', 'k'.repeat(256), 'clé', 'a b', 'x'.repeat(10_000)),
    fc.string({ maxLength: 30 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  );
}

function requestArbitrary(route: ApiRoute) {
  const path = fc
    .tuple(...route.pathParams.map((p) => idArbitrary(route, p.name).map((v) => [p.name, v] as const)))
    .map((pairs) => {
      const values = Object.fromEntries(pairs);
      return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name]!);
    });
  return fc
    .record({
      path: route.pathParams.length ? path : fc.constant(route.path),
      query: queryArbitrary(route),
      body: route.jsonBody
        ? bodyArbitrary(route).map((b) => b as typeof b | undefined)
        : fc.constant(undefined),
      idempotencyKey: idempotencyKeyArbitrary(route),
    })
    .map((req) =>
      // Counterexamples print shortened: some bodies are 100 KB or nest 5,000 deep.
      Object.assign(req, {
        [fc.toStringMethod]: () =>
          JSON.stringify({
            ...req,
            path: req.path.slice(0, 200),
            body: req.body && {
              ...req.body,
              raw: `${req.body.raw.slice(0, 120)}… (${req.body.raw.length} chars)`,
            },
            idempotencyKey: req.idempotencyKey?.slice(0, 40),
          }),
      }),
    );
}

/** What must hold for every response, whatever the input. */
function expectWellBehaved(res: TestResponse, label: string) {
  const summary = `${label} → ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, summary).toBeLessThan(500);
  expect(res.headers.get('content-type') ?? '', summary).toMatch(/^application\/json/);
  expect(() => JSON.parse(res.text), summary).not.toThrow();
  expect(res.headers.get('request-id'), summary).toMatch(/^req_[0-9A-Za-z]{24}$/);
  if (res.status >= 400) expectApiError(res);
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);
    const tenant = useBeforeAll(() => h.tenant());

    for (const route of routes) {
      it(`${route.name} survives hostile input`, { timeout: 60_000 }, async () => {
        await fc.assert(
          fc.asyncProperty(requestArbitrary(route), fc.boolean(), async (req, testMode) => {
            const headers: Record<string, string> = {};
            if (req.body?.contentType !== undefined) headers['content-type'] = req.body.contentType;
            else if (req.body) headers['content-type'] = 'application/json';
            if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
            const url = `${req.path}${req.query}`;
            const res = await h.request(route.method, url, {
              key: testMode ? tenant.testKey : tenant.liveKey,
              headers,
              ...(req.body ? { raw: req.body.raw } : {}),
            });
            expectWellBehaved(
              res,
              `${route.method} ${url.slice(0, 200)} body=${req.body?.raw.slice(0, 200)}`,
            );
          }),
          { numRuns: NUM_RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: false },
        );
      });
    }
  });
}
