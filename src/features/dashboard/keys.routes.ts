import type { Hono } from 'hono';
import { keysPage } from '../../../web/pages/keys.pages.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { isCalendarDate } from '../../lib/time.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../api-keys/api-keys.service.ts';
import { SCOPES } from '../api-keys/scopes.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { act, field, fields, render, shellOf, statusOf } from './respond.ts';

/** Settings → API keys: create (shown once), list, revoke. The page never holds a key except the one just made. */
export function keysRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  const list = (accountId: string) => listApiKeys(deps, accountId);

  app.get('/settings/keys', async (c) =>
    render(
      c,
      keysPage(shellOf(c, assets.version), { keys: await list(c.get('actor').accountId), scopes: SCOPES }),
    ),
  );

  app.post('/settings/keys', async (c) => {
    const form = await c.req.parseBody({ all: true });
    const accountId = c.get('actor').accountId;
    try {
      const name = field(form, 'name').trim();
      if ([...name].length > 200) {
        throw new AppError('parameter_invalid', 'The name must be at most 200 characters.', {
          param: 'name',
        });
      }
      const expires = field(form, 'expires');
      let expiresAt: string | undefined;
      if (expires) {
        if (!isCalendarDate(expires)) {
          throw new AppError('parameter_invalid', 'Expires must be a date.', { param: 'expires' });
        }
        expiresAt = `${expires}T00:00:00.000Z`;
        if (Date.parse(expiresAt) <= Date.now()) {
          throw new AppError('parameter_invalid', 'Expires must be a date in the future.', {
            param: 'expires',
          });
        }
      }
      const created = await createApiKey(deps, {
        accountId,
        mode: field(form, 'mode') === 'test' ? 'test' : 'live',
        scopes: fields(form, 'scopes'),
        ...(name ? { name } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      });
      const markup = keysPage(shellOf(c, assets.version), {
        keys: await list(accountId),
        scopes: SCOPES,
        created: { key: created.key, ...(name ? { name } : {}) },
      });
      return render(c, markup, 201);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const markup = keysPage(shellOf(c, assets.version), {
        keys: await list(accountId),
        scopes: SCOPES,
        error: err.message,
      });
      return render(c, markup, statusOf(err));
    }
  });

  app.post('/settings/keys/:id/revoke', async (c) =>
    act(c, '/settings/keys', async () => {
      const id = c.req.param('id');
      // The key must be this account's: revokeApiKey itself looks keys up by id alone (it serves the CLI).
      const mine = (await list(c.get('actor').accountId)).find((k) => k.id === id);
      if (!mine) throw new AppError('resource_not_found', `No API key with id '${id}'.`);
      await revokeApiKey(deps, id);
      return { ok: `Revoked the key ${mine.name ? `“${mine.name}”` : `${mine.start}…`}.` };
    }),
  );
}
