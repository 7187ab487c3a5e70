/**
 * What one /mcp request may cost: MCP is bounded like REST. Every JSON-RPC message counts against the
 * key's rate limit (a batch of N counts N), a batch holds at most MAX_BATCH_MESSAGES messages (and exists only in
 * revision 2025-03-26), and tool results have a size ceiling, per result and per request.
 */

/** Messages in one JSON-RPC batch; more is refused before anything runs. */
export const MAX_BATCH_MESSAGES = 10;

/** The one revision that has JSON-RPC batches: 2025-06-18 removed them, later revisions never had them. */
export const BATCH_REVISION = '2025-03-26';

/**
 * Bytes of one tool result's JSON (sent twice: as `structuredContent` and as its text copy). A full transcript
 * can be 2 MB: get_note with `include_transcript` answers a tool error beyond this, pointing to get_transcript
 * and the REST API.
 */
export const MAX_TOOL_RESULT_BYTES = 1024 * 1024;

/** Bytes of all tool results of one request together (a batch): later calls get a tool error beyond it. */
export const MAX_REQUEST_RESULT_BYTES = 4 * 1024 * 1024;

/** What is left of one request's result budget; shared by the tool calls of a batch. */
export interface ResultBudget {
  bytesLeft: number;
}

export const newResultBudget = (): ResultBudget => ({ bytesLeft: MAX_REQUEST_RESULT_BYTES });

/** "1.4 MB", "812 KB": sizes in messages. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** A JSON-RPC error answer of the transport (HTTP 400, Invalid Request), as the SDK answers its own refusals. */
function invalidRequest(message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * Refuses a batch that is too large, or sent with a protocol revision that has no batches (the
 * `MCP-Protocol-Version` header; a 2025-03-26 client may omit it). Null when the batch may be served.
 */
export function refuseBatch(batch: unknown[], protocolVersion: string | undefined): Response | null {
  if (protocolVersion !== undefined && protocolVersion !== BATCH_REVISION) {
    return invalidRequest(
      `JSON-RPC batches are not part of MCP revision ${protocolVersion.slice(0, 40)} (revision 2025-06-18 ` +
        'removed them): send one message per request.',
    );
  }
  if (batch.length > MAX_BATCH_MESSAGES) {
    return invalidRequest(
      `A JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages; this one has ${batch.length}. ` +
        'Send fewer per batch, or one per request.',
    );
  }
  return null;
}
