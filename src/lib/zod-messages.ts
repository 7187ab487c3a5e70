import { z } from 'zod';

/**
 * Zod's default messages ("Invalid input: expected string, received number", "Too big: expected string to have
 * <=200 characters", `invalid option: expected one of "a"|"b"`) are written for developers reading a stack.
 * This error map words every default in the house style instead: a lower-case clause that completes
 * "Invalid 'field': …" (src/http/validation.ts), says what is accepted and, where short, what was sent.
 * Messages a schema sets itself win over this map (zod's precedence), so it only replaces defaults.
 * Installed once, globally, by importing this module (the HTTP validation layer and the config loader do).
 */
type RawIssue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
  date: 'a date',
  nan: 'NaN',
  undefined: 'absent',
};

/** "a string", "a number", "null", "an array", "an object" for the value that was sent. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'boolean') return `${value}`;
  return TYPE_NAMES[typeof value] ?? typeof value;
}

/** A short value quoted for a message, or nothing when it would be long or is not a primitive. */
function quoted(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length <= 60 ? `'${value}'` : undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function plural(n: number | bigint, word: string): string {
  return `${n} ${word}${Number(n) === 1 ? '' : 's'}`;
}

const FORMATS: Record<string, string> = {
  email: 'an email address such as ada@example.com',
  url: 'an absolute URL such as https://example.com/path',
  datetime: 'an ISO 8601 date-time such as 2026-11-25T10:00:00Z',
  date: 'a date such as 2026-11-25',
  time: 'a time such as 10:00:00',
  duration: 'an ISO 8601 duration such as PT1H',
  uuid: 'a UUID',
  guid: 'a GUID',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  cidrv4: 'an IPv4 CIDR range',
  cidrv6: 'an IPv6 CIDR range',
  base64: 'base64 text',
  base64url: 'base64url text',
  json_string: 'a JSON string',
  e164: 'a phone number in E.164 form such as +14155550100',
  jwt: 'a JWT',
};

function sizeLimit(
  origin: string,
  bound: number | bigint,
  inclusive: boolean | undefined,
  max: boolean,
): string {
  const n = Number(bound);
  switch (origin) {
    case 'string':
      if (!max && n === 1) return 'must not be empty';
      return `must be ${max ? 'at most' : 'at least'} ${plural(bound, 'character')}`;
    case 'array':
    case 'set':
      if (!max && n === 1) return 'must not be empty';
      return `must have ${max ? 'at most' : 'at least'} ${plural(bound, 'item')}`;
    case 'file':
      return `must be ${max ? 'at most' : 'at least'} ${plural(bound, 'byte')}`;
    case 'date':
      return `must be ${max ? 'on or before' : 'on or after'} ${new Date(n).toISOString()}`;
    default:
      if (inclusive === false) return `must be ${max ? 'less' : 'greater'} than ${bound}`;
      return `must be ${max ? 'at most' : 'at least'} ${bound}`;
  }
}

/** The house-style clause for one of zod's default issues. */
export function houseStyleMessage(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is required';
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return `must be ${expected}, not ${describeValue(issue.input)}`;
    }
    case 'too_big':
      return sizeLimit(issue.origin, issue.maximum, issue.inclusive, true);
    case 'too_small':
      return sizeLimit(issue.origin, issue.minimum, issue.inclusive, false);
    case 'invalid_format': {
      const format = issue.format as string;
      const f = issue as RawIssue & { prefix?: string; suffix?: string; includes?: string };
      if (format === 'starts_with') return `must start with '${f.prefix}'`;
      if (format === 'ends_with') return `must end with '${f.suffix}'`;
      if (format === 'includes') return `must contain '${f.includes}'`;
      if (format === 'regex') return 'is not in the expected format';
      return `must be ${FORMATS[format] ?? `a valid ${format}`}`;
    }
    case 'invalid_value': {
      const values = issue.values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
      const got = quoted(issue.input);
      const head = values.length === 1 ? `must be ${values[0]}` : `must be one of ${values.join(', ')}`;
      return got ? `${head} (not ${got})` : head;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has unknown ${issue.keys.length === 1 ? 'field' : 'fields'} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    case 'invalid_union':
      return 'does not match any of the accepted forms';
    case 'invalid_key':
      return 'has a key that is not allowed';
    case 'invalid_element':
      return 'has a value that is not allowed';
    default:
      return 'is not valid';
  }
}

z.config({ customError: houseStyleMessage });
