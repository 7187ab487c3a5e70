import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { databaseBusyError, isDatabaseBusy } from '../../db/database-busy.ts';
import { AppError } from '../../lib/errors.ts';
import type { McpCaller, ToolDefinition } from './tools/tool.ts';

/** The parameter names a tool accepts, for "unknown parameter" hints. */
function parameterNames(tool: ToolDefinition): string[] {
  return tool.input instanceof z.ZodObject ? Object.keys(tool.input.shape) : [];
}

/** What the model should do next, by error code: the part of the message that turns a failure into progress. */
function nextStep(tool: ToolDefinition, error: AppError): string {
  switch (error.code) {
    case 'insufficient_scope':
      return (
        `Tell the user that ${tool.name} needs an API key with the '${tool.scope}' scope: a key created without ` +
        `--scopes has every scope, or create one with \`npx minutes keys create --mode live --scopes ${tool.scope},…\` ` +
        'and put it in the Authorization header of this MCP server. Tools whose scopes the key holds keep working.'
      );
    case 'resource_not_found':
      return tool.notFoundHint;
    case 'parameter_unknown':
      return `${tool.name} accepts only: ${parameterNames(tool).join(', ')}. Call it again without the unknown parameter.`;
    case 'parameter_missing':
    case 'parameter_invalid':
    case 'payload_too_large':
      return error.details.param
        ? `Correct '${error.details.param}' (see the input schema of ${tool.name}) and call it again.`
        : `Correct the arguments (see the input schema of ${tool.name}) and call it again.`;
    case 'unavailable':
      return 'The service is temporarily unavailable; try again in a few seconds.';
    default:
      return 'Try again; if it keeps failing, tell the user.';
  }
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * A tool failure as an `isError` result (never a protocol error): the API's message, what to do next and the
 * error code. Errors that are not AppErrors are bugs or outages: logged with their stack, answered with the
 * request id only, never with their message (which could hold SQL or paths).
 */
export function toolFailure(tool: ToolDefinition, thrown: unknown, caller: McpCaller): CallToolResult {
  const err = isDatabaseBusy(thrown) ? databaseBusyError() : thrown;
  if (err instanceof AppError && err.code !== 'internal_error') {
    return failure(`${err.message}\nNext step: ${nextStep(tool, err)}\n(error code: ${err.code})`);
  }
  caller.log.error({ err, tool: tool.name }, 'mcp tool failed');
  return failure(
    `An internal error occurred while running ${tool.name}; it has been logged under request id ` +
      `${caller.requestId}.\nNext step: try once more; if it fails again, tell the user and quote the request id.\n` +
      '(error code: internal_error)',
  );
}

/** The scope check every tool runs first, before its arguments are validated (the REST order). */
export function requireToolScope(tool: ToolDefinition, caller: McpCaller): void {
  if (!caller.actor.scopes.has(tool.scope)) {
    throw new AppError(
      'insufficient_scope',
      `This API key lacks the '${tool.scope}' scope needed for ${tool.name}.`,
    );
  }
}
