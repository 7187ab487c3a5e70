import { type Html, html } from '../html.ts';
import { csrfField, page, type Shell, when } from '../layout.ts';

/** The server map entries of docs/mcp.md, with this server's URL filled in. */
export function mcpSnippets(mcpUrl: string): { id: string; client: string; where: string; text: string }[] {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      id: 'cursor',
      client: 'Cursor',
      where: '~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project):',
      text: json({
        mcpServers: {
          minutes: { url: mcpUrl, headers: { Authorization: 'Bearer ${env:MINUTES_API_KEY}' } },
        },
      }),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where: '.vscode/mcp.json in the workspace (VS Code asks for the key once):',
      text: json({
        inputs: [
          { type: 'promptString', id: 'minutes-api-key', description: 'Minutes API key', password: true },
        ],
        servers: {
          minutes: {
            type: 'http',
            url: mcpUrl,
            headers: { Authorization: 'Bearer ${input:minutes-api-key}' },
          },
        },
      }),
    },
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'Run in a terminal (replace the key):',
      text: `claude mcp add --transport http minutes ${mcpUrl} \\\n  --header "Authorization: Bearer svc_sk_live_…"`,
    },
    {
      id: 'claude-desktop',
      client: 'Claude Desktop',
      where: 'claude_desktop_config.json (through mcp-remote; needs Node.js), then restart Claude Desktop:',
      text: json({
        mcpServers: {
          minutes: {
            command: 'npx',
            args: [
              '-y',
              'mcp-remote',
              mcpUrl,
              '--header',
              'Authorization:${MINUTES_AUTH}',
              ...(mcpUrl.startsWith('http://') && !/^http:\/\/(localhost|127\.0\.0\.1)[:/]/.test(mcpUrl)
                ? ['--allow-http']
                : []),
            ],
            env: { MINUTES_AUTH: 'Bearer svc_sk_live_…' },
          },
        },
      }),
    },
  ];
}

/** An app connected through OAuth, as Settings → MCP lists it. */
export interface ConnectedApp {
  grantId: string;
  clientName: string;
  scopes: string[];
  mode: 'live' | 'test';
  createdAt: string;
  lastUsedAt?: string;
}

function connectedApps(shell: Shell, apps: readonly ConnectedApp[]): Html {
  return html`<section aria-labelledby="connected-apps-h">
<h2 id="connected-apps-h">Connected apps</h2>
<p>Assistants that signed in with OAuth (Claude, ChatGPT and other connectors use the URL above). Disconnect ends their access at once.</p>
${
  apps.length
    ? html`<table><thead><tr><th scope="col">App</th><th scope="col">Permissions</th><th scope="col">Data</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
${apps.map(
  (
    a,
  ) => html`<tr><td>${a.clientName}</td><td>${a.scopes.join(', ')}</td><td>${a.mode === 'live' ? 'Live' : 'Test'}</td><td>${when(a.createdAt)}</td><td>${a.lastUsedAt ? when(a.lastUsedAt) : 'Never'}</td>
<td><form method="post" action="/settings/mcp/connections/${a.grantId}/disconnect">${csrfField(shell.csrf)}<button type="submit">Disconnect<span class="visually-hidden"> ${a.clientName}</span></button></form></td></tr>`,
)}
</tbody></table>`
    : html`<p>No app is connected.</p>`
}
</section>`;
}

export function mcpPage(shell: Shell, mcpUrl: string, apps: readonly ConnectedApp[] = []): Html {
  return page(
    shell,
    { title: 'MCP', section: 'mcp' },
    html`<h1>MCP</h1>
<p>Assistants reach your notes through the MCP server at <code>${mcpUrl}</code> with an API key. <a href="/settings/keys">Create a key for it</a> (a read-only one, with notes:read, search and actions:read, is a good start), then add the entry below to your client.</p>
${mcpSnippets(mcpUrl).map(
  (s) => html`<section aria-labelledby="mcp-${s.id}-h">
  <h2 id="mcp-${s.id}-h">${s.client}</h2>
  <p>${s.where}</p>
  <pre id="mcp-${s.id}"><code>${s.text}</code></pre>
  <button type="button" data-copy="mcp-${s.id}">Copy<span class="visually-hidden"> the ${s.client} entry</span></button>
</section>`,
)}
${connectedApps(shell, apps)}`,
  );
}
