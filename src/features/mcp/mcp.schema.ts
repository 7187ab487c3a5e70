import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { zodIssueToError } from '../../http/validation.ts';

type JsonSchema = Record<string, unknown>;
type Target = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

/** Zod's bounds for an unbounded `z.int()`: noise to a model, dropped from the advertised schemas. */
const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

function stripSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSafeIntegerBounds);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'minimum' && value === SAFE_MIN) || (key === 'maximum' && value === SAFE_MAX)) continue;
    out[key] = stripSafeIntegerBounds(value);
  }
  return out;
}

const converters = new WeakMap<z.ZodType, StandardSchemaWithJSON['~standard']['jsonSchema']>();

/**
 * JSON Schema of a zod schema, converted once per process and target: every MCP request builds a new server and
 * registers the tools anew, and converting on each `tools/list` or `tools/call` would dominate its cost.
 */
function cachedJsonSchema(schema: z.ZodType): StandardSchemaWithJSON['~standard']['jsonSchema'] {
  let converter = converters.get(schema);
  if (!converter) {
    const cache = new Map<string, JsonSchema>();
    const convert = (io: 'input' | 'output') => (options: Target) => {
      const key = `${io}:${options.target}`;
      let json = cache.get(key);
      if (!json) {
        json = stripSafeIntegerBounds(schema['~standard'].jsonSchema[io](options)) as JsonSchema;
        cache.set(key, json);
      }
      return json;
    };
    converter = { input: convert('input'), output: convert('output') };
    converters.set(schema, converter);
  }
  return converter;
}

/**
 * A tool's input schema as the SDK sees it: it advertises the zod schema's JSON Schema in `tools/list`, but
 * accepts any arguments, so that the tool wrapper decides the order of checks exactly as the REST API does
 * (scope first, then validation, then lookups) and words validation failures with the API's own messages
 * (`zodIssueToError`) instead of the SDK's generic "Input validation error".
 */
export function advertisedInput<T extends z.ZodType>(schema: T): StandardSchemaWithJSON<unknown, unknown> {
  return {
    '~standard': {
      version: 1,
      vendor: 'minutes',
      validate: (value) => ({ value }),
      jsonSchema: cachedJsonSchema(schema),
    },
  };
}

/** A tool's output schema: validated by the SDK on every result (so drift from the REST shapes fails loudly). */
export function checkedOutput<T extends z.ZodType>(
  schema: T,
): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'minutes',
      validate: (value) => {
        const result = schema.safeParse(value);
        return result.success
          ? { value: result.data }
          : { issues: result.error.issues.map((i) => ({ message: i.message, path: i.path })) };
      },
      jsonSchema: cachedJsonSchema(schema),
    },
  };
}

/**
 * Parses with a zod schema or throws the API's 400 for the first issue (`param` names the argument). An unknown
 * argument is reported before anything else: `noteId` for `note_id` also makes `note_id` "missing", and the
 * misspelling is the useful half of that news.
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = [...result.error.issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  // A rule about the arguments as a whole ("give at least one of …") has no parameter to name: "Invalid arguments: …".
  throw zodIssueToError(new z.ZodError(issues), 'arguments');
}

/** An integer argument with the REST API's range message. */
export const intIn = (min: number, max: number) =>
  z
    .number({ error: `must be an integer between ${min} and ${max}` })
    .int(`must be an integer between ${min} and ${max}`)
    .min(min, `must be an integer between ${min} and ${max}`)
    .max(max, `must be an integer between ${min} and ${max}`);

/** `undefined` stays absent; numbers become the strings a REST query string would carry. */
export const asQuery = (value: number | undefined) => (value === undefined ? undefined : String(value));

/** Drops `undefined` members, so "not given" never reaches a REST body schema as a present key. */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
