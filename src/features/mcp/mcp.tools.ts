import { listActionItemsTool, updateActionItemTool } from './tools/action-items.tools.ts';
import { askNotesTool } from './tools/ask.tools.ts';
import { connectorFetchTool, connectorSearchTool } from './tools/connector.tools.ts';
import { getNoteExportTool } from './tools/export.tools.ts';
import {
  getNoteTool,
  getTranscriptTool,
  listHighlightsTool,
  listNotesTool,
  updateNoteTool,
} from './tools/notes.tools.ts';
import { searchNotesTool } from './tools/search.tools.ts';
import { renameSpeakersTool } from './tools/speakers.tools.ts';
import type { ToolDefinition } from './tools/tool.ts';
import { listWebhooksTool } from './tools/webhooks.tools.ts';

/** Every tool /mcp offers, in the order `tools/list` shows them. */
export const MCP_TOOLS: readonly ToolDefinition[] = [
  searchNotesTool,
  askNotesTool,
  listNotesTool,
  getNoteTool,
  getTranscriptTool,
  updateNoteTool,
  renameSpeakersTool,
  getNoteExportTool,
  listHighlightsTool,
  listActionItemsTool,
  updateActionItemTool,
  listWebhooksTool,
  connectorSearchTool,
  connectorFetchTool,
];
