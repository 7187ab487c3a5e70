import type { Hook } from '@hono/zod-openapi';
import type { z } from 'zod';
import { AppError, type ErrorCode } from '../lib/errors.ts';
import type { AppEnv } from './context.ts';

/** Converts the first zod issue into the API's 400: which field, what is wrong, in one sentence. */
export function zodIssueToError(error: z.ZodError, target?: string): AppError {
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
    message = `Unknown parameter '${param}'. Check the spelling; unknown body fields are rejected.`;
  } else if (issue.code === 'invalid_type' && issue.input === undefined) {
    code = 'parameter_missing';
    message = `Missing required parameter '${param}'.`;
  } else if (param) {
    message = `Invalid '${param}': ${lowerFirst(issue.message)}.`.replace(/\.\.$/, '.');
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
  if (!result.success) throw zodIssueToError(result.error as z.ZodError, result.target);
};
