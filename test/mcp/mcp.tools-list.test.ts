import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useMcpEndpoint } from './mcp-helpers.ts';

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: {
    type: string;
    properties?: Record<string, { description?: string }>;
    additionalProperties?: unknown;
  };
  outputSchema?: { type?: string };
  annotations?: Record<string, unknown>;
}

/** Every property of a JSON Schema object, nested ones included, with its path. */
function* properties(schema: unknown, path = ''): Generator<[string, Record<string, unknown>]> {
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  for (const [name, prop] of Object.entries((node.properties as Record<string, unknown>) ?? {})) {
    yield [`${path}${name}`, prop as Record<string, unknown>];
  }
}

/**
 * The tool surface is a contract with every configured assistant: the `tools/list` answer is kept in
 * __snapshots__/tools-list.snap, so any change to names, descriptions, schemas or annotations shows up in review
 * (update deliberately with `npx vitest run test/mcp -u`).
 */
/** The tools in the shapes ChatGPT's connectors and deep research call (one-word names, `id`). */
const CONNECTOR_TOOLS = new Set(['search', 'fetch']);

for (const dialect of DIALECTS) {
  describe(`MCP tools/list (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);

    it('is the same in both eras and matches the committed snapshot', async () => {
      const t = await h.tenant();
      const legacy = (await (await mcp.connect(t.liveKey, 'legacy')).listTools()).tools;
      const modern = (await (await mcp.connect(t.testKey, 'modern')).listTools()).tools;
      expect(modern).toEqual(legacy);
      await expect(`${JSON.stringify(legacy, null, 2)}\n`).toMatchFileSnapshot(
        './__snapshots__/tools-list.snap',
      );
    });

    it('every tool is written for a model: snake_case, titled, described, every parameter described', async () => {
      const t = await h.tenant();
      const tools = (await (await mcp.connect(t.liveKey, 'legacy')).listTools()).tools as ListedTool[];
      for (const tool of tools) {
        // snake_case; `search` and `fetch` are the one-word names ChatGPT's connectors call.
        expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
        expect(tool.title, tool.name).toMatch(/^[A-Z]/);
        expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(120);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.inputSchema.additionalProperties, `${tool.name} refuses unknown arguments`).toBe(false);
        for (const [name, prop] of properties(tool.inputSchema)) {
          expect(prop.description, `${tool.name}.${name} has a description`).toEqual(expect.any(String));
        }
        expect(tool.outputSchema?.type, `${tool.name} declares its output`).toBe('object');
        expect(tool.annotations, tool.name).toMatchObject({
          readOnlyHint: expect.any(Boolean),
          destructiveHint: expect.any(Boolean),
          idempotentHint: expect.any(Boolean),
          openWorldHint: false,
        });
        const reads = /^(list|get|search|ask)_/.test(tool.name) || CONNECTOR_TOOLS.has(tool.name);
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(reads);
        expect(tool.annotations?.destructiveHint, tool.name).toBe(!reads);
      }
      // search and fetch keep the parameter names ChatGPT's connectors send (`id`); the others follow the REST API.
      const idParams = tools
        .filter((tool) => !CONNECTOR_TOOLS.has(tool.name))
        .flatMap((tool) =>
          [...properties(tool.inputSchema)].map(([name]) => name).filter((name) => /id$/.test(name)),
        );
      expect(new Set(idParams)).toEqual(new Set(['note_id', 'action_item_id']));
    });
  });
}
