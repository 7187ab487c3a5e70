import type { Hook } from '@hono/zod-openapi';
import type { z } from 'zod';
import { AppError, type ErrorCode } from '../lib/errors.ts';
import '../lib/zod-messages.ts';
import type { AppEnv } from './context.ts';

/**
 * Where a validation message is read, which decides how an unknown key is named: a REST body field or query
 * parameter, an MCP tool argument, or a field of a file the CLI imports.
 */
export type InputKind = 'json' | 'query' | 'form' | 'param' | 'arguments' | 'file';

function unknownKeyMessage(kind: string | undefined, param: string): string {
  switch (kind) {
    case 'arguments':
      return `Unknown argument '${param}'.`;
    case 'file':
      return (
        `Unknown field '${param}'. A .json transcript is a note body ({"transcript": …} or {"segments": […]}, ` +
        'as POST /v1/notes takes), an array of segments or OpenAI verbose_json.'
      );
    case 'query':
      return `Unknown query parameter '${param}'. Check the spelling; unknown query parameters are rejected.`;
    default:
      return `Unknown parameter '${param}'. Check the spelling; unknown body fields are rejected.`;
  }
}

/** True when the input has a (non-undefined) value at the path. */
function hasValueAt(input: unknown, path: PropertyKey[]): boolean {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return false;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current !== undefined;
}

/**
 * Converts the first zod issue into the API's 400: which field, what is wrong, in one sentence.
 * Pass the validated input so that a field of the wrong type is not reported as missing (zod 4 issues do not
 * carry the input); without it, only zod's default "received undefined" message counts as missing.
 */
export function zodIssueToError(
  error: z.ZodError,
  target?: InputKind | string,
  input?: { value: unknown },
): AppError {
  const issue = error.issues[0];
  if (!issue) return new AppError('parameter_invalid', 'Invalid request.');
  const path = issue.path.map(String);
  let code: ErrorCode = 'parameter_invalid';
  let param = path.join('.');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    code = 'parameter_unknown';
    const key = issue.keys[0] ?? '';
    param = [...path, key].join('.');
    message = unknownKeyMessage(target, param);
  } else if (
    issue.code === 'invalid_type' &&
    (input ? !hasValueAt(input.value, issue.path) : /received undefined|^is required$/.test(issue.message))
  ) {
    code = 'parameter_missing';
    message = `Missing required parameter '${param}'.`;
  } else if (param) {
    message = `Invalid '${param}': ${lowerFirst(issue.message)}.`.replace(/\.\.$/, '.');
  } else if (target === 'arguments') {
    message = `Invalid arguments: ${lowerFirst(issue.message)}.`.replace(/\.\.$/, '.');
  } else if (target === 'file') {
    message = `Invalid file: ${lowerFirst(issue.message)}.`.replace(/\.\.$/, '.');
  } else if (target === 'json') {
    message = `Invalid request body: ${lowerFirst(issue.message)}.`.replace(/\.\.$/, '.');
  }
  return new AppError(code, message, param ? { param } : {});
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/** The default hook of every OpenAPI route: validation failures become AppErrors. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (!result.success) {
    // On failure the hook's `data` is the input that was validated (the parsed body, query or params).
    const input = (result as { data?: unknown }).data;
    throw zodIssueToError(result.error as z.ZodError, result.target, { value: input });
  }
};
