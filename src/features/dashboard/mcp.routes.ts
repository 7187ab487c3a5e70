import type { Hono } from 'hono';
import { mcpPage } from '../../../web/pages/mcp.pages.ts';
import type { Deps } from '../../deps.ts';
import { deleteConnection, listConnections } from '../oauth/oauth.connections.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { act, render, shellOf } from './respond.ts';
import { isHttps } from './session.ts';

/** Settings → MCP: the server map entry of each client, with this server's URL, and the apps connected by OAuth. */
export function mcpRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  app.get('/settings/mcp', async (c) => {
    const host =
      c.req.header('x-forwarded-host')?.split(',')[0]?.trim() ||
      c.req.header('host') ||
      new URL(c.req.url).host;
    const base = deps.config.publicUrl ?? `${isHttps(c) ? 'https' : 'http'}://${host}`;
    const apps = (await listConnections(deps.db, c.get('session').account_id)).map((row) => ({
      grantId: row.grant_id,
      clientName: row.client_name,
      scopes: row.scopes.split(' '),
      mode: row.mode,
      createdAt: row.created_at,
      ...(row.last_used_at ? { lastUsedAt: row.last_used_at } : {}),
    }));
    return render(c, mcpPage(shellOf(c, assets.version), `${base}/mcp`, apps));
  });
  // Disconnect: the grant and every token it issued, at once; only this account's own grants.
  app.post('/settings/mcp/connections/:grantId/disconnect', (c) =>
    act(c, '/settings/mcp', async () => {
      const gone = await deleteConnection(deps.db, c.get('session').account_id, c.req.param('grantId'));
      return { ok: gone ? 'Disconnected.' : 'That app was already disconnected.' };
    }),
  );
}
