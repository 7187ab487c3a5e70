import type { Hono } from 'hono';
import { mcpPage } from '../../../web/pages/mcp.pages.ts';
import type { Deps } from '../../deps.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { render, shellOf } from './respond.ts';
import { isHttps } from './session.ts';

/** Settings → MCP: the server map entry of each client, with this server's URL. */
export function mcpRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  app.get('/settings/mcp', (c) => {
    const host =
      c.req.header('x-forwarded-host')?.split(',')[0]?.trim() ||
      c.req.header('host') ||
      new URL(c.req.url).host;
    const base = deps.config.publicUrl ?? `${isHttps(c) ? 'https' : 'http'}://${host}`;
    return render(c, mcpPage(shellOf(c, assets.version), `${base}/mcp`));
  });
}
