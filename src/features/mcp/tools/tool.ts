import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Deps } from '../../../deps.ts';
import type { Actor, Scope } from '../../api-keys/scopes.ts';
import type { ResultBudget } from '../mcp.limits.ts';

/** Who is calling through /mcp: resolved from the API key by the route, exactly as for REST. */
export interface McpCaller {
  actor: Actor;
  requestId: string;
  log: Logger;
  /** The address the client reached this server at (scheme and host), for links into the dashboard. */
  baseUrl?: string;
}

export interface ToolContext extends McpCaller {
  deps: Deps;
  /** What is left of this request's result size budget (MAX_REQUEST_RESULT_BYTES), shared by a batch. */
  results: ResultBudget;
}

/**
 * One MCP tool: a thin adapter over the service function its REST operation calls. `input` is the zod schema
 * advertised in `tools/list` (every parameter `.describe()`d); `run` receives the parsed arguments and returns
 * the same JSON the REST operation returns, which becomes both `structuredContent` and the text copy.
 */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  /** The scope of the REST operation the tool wraps (docs/api.md, MCP: tools need the scope of the operation they wrap). */
  scope: Scope;
  input: I;
  output: O;
  annotations: Required<
    Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>
  >;
  /** Told to the model when an id it passed does not exist: where valid ids come from. */
  notFoundHint: string;
  /** Told to the model when a result is over MAX_TOOL_RESULT_BYTES: how to ask for less. */
  tooLargeHint?: string;
  run(ctx: ToolContext, args: z.output<I>): Promise<z.input<O>>;
}

/** Keeps the link between a tool's schemas and its `run` while collecting tools of different types in one list. */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(
  tool: ToolDefinition<I, O>,
): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * Updates overwrite what was there (a title, the whole tag list, an item's text or due date): not additive, so
 * `destructiveHint` is true and clients may ask the user first. Repeating the same call changes nothing more.
 */
export const OVERWRITING_UPDATE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
} as const;
