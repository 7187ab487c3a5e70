import {
  type CallToolResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { sliceCodePoints, wellFormedDeep } from '../../lib/text.ts';
import { VERSION } from '../../lib/version.ts';
import { ListNotesQuery } from '../notes/notes.schema.ts';
import { getNote, listNotes } from '../notes/notes.service.ts';
import { requireToolScope, toolFailure } from './mcp.errors.ts';
import {
  formatBytes,
  MAX_REQUEST_RESULT_BYTES,
  MAX_TOOL_RESULT_BYTES,
  newResultBudget,
} from './mcp.limits.ts';
import { advertisedInput, checkedOutput, parseOrThrow } from './mcp.schema.ts';
import { MCP_TOOLS } from './mcp.tools.ts';
import type { McpCaller, ToolContext, ToolDefinition } from './tools/tool.ts';

export const SERVER_INSTRUCTIONS =
  "Minutes holds the user's meetings as notes: title, summary, transcript with named speakers, highlights, " +
  'action items and tags. Use search_notes for questions about what was said or decided (semantic search), ' +
  'list_notes to browse by date, tag or keyword, get_note for one meeting at a glance, get_transcript to read ' +
  'the conversation page by page, and list_action_items / update_action_item for to-dos. Ids are opaque ' +
  '(note_…, ai_…); take them from earlier results. Dates are ISO 8601 in UTC.';

/** Runs one tool call: scope, then arguments, then the service; every failure becomes an `isError` result. */
async function callTool(tool: ToolDefinition, ctx: ToolContext, args: unknown): Promise<CallToolResult> {
  const started = performance.now();
  let outcome = 'ok';
  try {
    requireToolScope(tool, ctx);
    // Lone surrogates become U+FFFD, as in REST bodies (one rule on both databases).
    const value = await tool.run(ctx, parseOrThrow(tool.input, wellFormedDeep(args ?? {})));
    const text = JSON.stringify(value);
    const refusal = resultTooLarge(tool, Buffer.byteLength(text), ctx);
    if (refusal) {
      outcome = 'result_too_large';
      return refusal;
    }
    return { content: [{ type: 'text', text }], structuredContent: value as Record<string, unknown> };
  } catch (err) {
    outcome = err instanceof AppError ? err.code : 'internal_error';
    return toolFailure(tool, err, ctx);
  } finally {
    ctx.log.info(
      { tool: tool.name, outcome, ms: Math.round((performance.now() - started) * 10) / 10 },
      'mcp tool',
    );
  }
}

/**
 * A tool error instead of a result over MAX_TOOL_RESULT_BYTES, or over what is left of the request's budget
 * (MAX_REQUEST_RESULT_BYTES, shared by a batch); otherwise takes the result's size from the budget and returns
 * null.
 */
function resultTooLarge(tool: ToolDefinition, bytes: number, ctx: ToolContext): CallToolResult | null {
  const fail = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
  if (bytes > MAX_TOOL_RESULT_BYTES) {
    return fail(
      `The result of ${tool.name} is ${formatBytes(bytes)}, over the ${formatBytes(MAX_TOOL_RESULT_BYTES)} limit ` +
        `of one MCP tool result.\nNext step: ${tool.tooLargeHint ?? 'Ask for less: fewer items per page.'}\n` +
        '(error code: result_too_large)',
    );
  }
  if (bytes > ctx.results.bytesLeft) {
    return fail(
      `The results of this request's tool calls together would exceed ${formatBytes(MAX_REQUEST_RESULT_BYTES)}, ` +
        `so ${tool.name} was not answered.\nNext step: call ${tool.name} again in a request of its own, or send ` +
        'fewer calls per batch.\n(error code: result_too_large)',
    );
  }
  ctx.results.bytesLeft -= bytes;
  return null;
}

/** A failure that is no AppError: logged with its stack, answered with the request id only (never its message). */
function internalError(ctx: ToolContext, err: unknown, what: string): ProtocolError {
  ctx.log.error({ err }, what);
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `An internal error occurred; it has been logged under request id ${ctx.requestId}.`,
  );
}

const NOTE_URI = 'note://{note_id}';
/** How many of the newest notes `resources/list` offers; everything else is reachable by id or through tools. */
const LISTED_NOTES = 20;

/** `note://{note_id}`: a note in detail form with its transcript, the JSON of GET /v1/notes/:id. */
function registerNoteResource(server: McpServer, ctx: ToolContext) {
  const { deps, actor } = ctx;
  const readable = () => actor.scopes.has('notes:read');
  server.registerResource(
    'note',
    new ResourceTemplate(NOTE_URI, {
      // Without notes:read there is nothing this key may list; reading says why.
      list: async () => {
        if (!readable()) return { resources: [] };
        const query = parseOrThrow(ListNotesQuery, { per_page: String(LISTED_NOTES) });
        const page = await listNotes(deps, actor, query).catch((err: unknown) => {
          throw internalError(ctx, err, 'mcp resource list failed');
        });
        return {
          resources: page.data.map((note) => ({
            uri: `note://${note.id}`,
            name: note.title,
            description: sliceCodePoints(`${note.created_at.slice(0, 10)}: ${note.summary}`, 300),
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Note',
      description:
        "A note with its transcript, speakers, highlights and action items, as JSON (the REST API's note detail).",
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = String(variables.note_id ?? '');
      if (!readable()) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          "This API key lacks the 'notes:read' scope needed to read notes.",
        );
      }
      let text: string;
      try {
        text = JSON.stringify(await getNote(deps, actor, id));
      } catch (err) {
        if (err instanceof AppError && err.code === 'resource_not_found') {
          throw new ResourceNotFoundError(
            uri.href,
            `No note with id '${id}' exists. Find note ids with list_notes.`,
          );
        }
        throw internalError(ctx, err, 'mcp resource read failed');
      }
      const bytes = Buffer.byteLength(text);
      if (bytes > Math.min(MAX_TOOL_RESULT_BYTES, ctx.results.bytesLeft)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `Note '${id}' is ${formatBytes(bytes)} as JSON, over the ${formatBytes(MAX_TOOL_RESULT_BYTES)} limit of ` +
            'one MCP result (or what is left of this request). Read it with get_note and get_transcript, which ' +
            `page the transcript, or over the REST API: GET /v1/notes/${id}.`,
        );
      }
      ctx.results.bytesLeft -= bytes;
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
    },
  );
}

const DAY_MS = 86_400_000;

/** Prompt arguments are strings in MCP. Built once: servers are built per request. */
const SummarizeArgs = z.object({
  days: z
    .string()
    // One check with one message: a regex and a range refinement would both fail on "abc" and repeat it.
    .refine(
      (v) => /^\d{1,2}$/.test(v) && Number(v) >= 1 && Number(v) <= 90,
      'must be a whole number of days, 1–90',
    )
    .optional()
    .describe('How many days back, including today: 1–90. Default 7.'),
});

/** A prompt that turns "summarize my week" into concrete tool calls over the right date range. */
function registerPrompts(server: McpServer) {
  server.registerPrompt(
    'summarize_meetings',
    {
      title: 'Summarize my recent meetings',
      description:
        'Summarizes the meetings of the last few days (this week by default): key points and decisions per ' +
        'meeting, open action items by person, and recurring themes.',
      argsSchema: SummarizeArgs,
    },
    ({ days }) => {
      const span = Number(days ?? 7);
      const to = new Date().toISOString().slice(0, 10);
      const from = new Date(Date.now() - (span - 1) * DAY_MS).toISOString().slice(0, 10);
      const text = [
        `Summarize my meetings from ${from} to ${to} (UTC).`,
        '',
        `1. Call list_notes with from="${from}", to="${to}" and per_page=100 (and further pages while meta.total ` +
          'says there are more).',
        '2. For each meeting that is more than small talk, call get_note for its summary, highlights, speakers and ' +
          'action items; read parts of the conversation with get_transcript only where the summary is not enough.',
        '3. Call list_action_items with status="pending" to see what is still open.',
        '',
        'Then write: one short section per meeting (date, title, who took part, two or three key points, decisions), ' +
          'the open action items grouped by assignee with due dates, and the themes that came up in several ' +
          'meetings. Name the meeting (title and date) a point comes from. If there were no meetings, say so.',
      ].join('\n');
      return { messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  );
}

/** What registerTool needs besides the callback: the same for every request, so built once. */
const REGISTRATIONS = MCP_TOOLS.map((tool) => ({
  tool,
  config: {
    title: tool.title,
    description: tool.description,
    inputSchema: advertisedInput(tool.input),
    outputSchema: checkedOutput(tool.output),
    annotations: { title: tool.title, ...tool.annotations },
  },
}));

/**
 * The MCP server for one request of one caller (stateless: a new instance per HTTP request). Every tool is
 * listed whatever the key's scopes (docs/api.md, MCP); a call without the scope is an `isError` result naming it.
 */
export function createMcpServer(deps: Deps, caller: McpCaller): McpServer {
  const server = new McpServer(
    { name: 'minutes', title: 'Minutes', version: VERSION },
    {
      instructions: SERVER_INSTRUCTIONS,
      // The tool, resource and prompt lists never change while a client is connected.
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
      },
    },
  );
  const ctx: ToolContext = { ...caller, deps, results: newResultBudget() };
  for (const { tool, config } of REGISTRATIONS)
    server.registerTool(tool.name, config, (args) => callTool(tool, ctx, args));
  registerNoteResource(server, ctx);
  registerPrompts(server);
  return server;
}

/** Reads the caller the route put into `authInfo.extra` (the SDK passes authInfo through untouched). */
export function callerFromAuthInfo(authInfo: { extra?: Record<string, unknown> } | undefined): McpCaller {
  const caller = authInfo?.extra?.caller as McpCaller | undefined;
  if (!caller) throw new Error('An MCP request reached the server without an authenticated caller.');
  return caller;
}
