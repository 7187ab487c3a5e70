import type { Hono } from 'hono';
import { webhookPage, webhooksPage } from '../../../web/pages/webhooks.pages.ts';
import type { Deps } from '../../deps.ts';
import { zodIssueToError } from '../../http/validation.ts';
import { AppError } from '../../lib/errors.ts';
import { EVENT_TYPES } from '../events/events.ts';
import { sendTestEvent } from '../webhooks/webhook-extras.service.ts';
import { CreateWebhookBody, ListDeliveriesQuery } from '../webhooks/webhooks.schema.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliverDelivery,
  updateWebhook,
} from '../webhooks/webhooks.service.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { act, field, fields, keepFlash, render, shellOf, statusOf } from './respond.ts';
import { setFlash } from './session.ts';

/**
 * Settings → Webhooks: add, activate/deactivate, delete, "Send test event"; each webhook's deliveries with
 * Redeliver.
 */
export function webhooksRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  app.get('/settings/webhooks', async (c) => {
    const { data } = await listWebhooks(deps, c.get('actor'));
    return render(c, webhooksPage(shellOf(c, assets.version), { webhooks: data, eventTypes: EVENT_TYPES }));
  });

  app.post('/settings/webhooks', async (c) => {
    const form = await c.req.parseBody({ all: true });
    const actor = c.get('actor');
    const secret = field(form, 'secret');
    const input = {
      url: field(form, 'url').trim(),
      events: fields(form, 'events'),
      ...(secret ? { secret } : {}),
    };
    try {
      const parsed = CreateWebhookBody.safeParse(input);
      if (!parsed.success) throw zodIssueToError(parsed.error, 'json', { value: input });
      await createWebhook(deps, actor, parsed.data);
      return c.redirect('/settings/webhooks', 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const { data } = await listWebhooks(deps, actor);
      return render(
        c,
        webhooksPage(shellOf(c, assets.version), {
          webhooks: data,
          eventTypes: EVENT_TYPES,
          error: err.message,
          form: { url: input.url, events: input.events },
        }),
        statusOf(err),
      );
    }
  });

  app.get('/settings/webhooks/:id', async (c) => {
    const actor = c.get('actor');
    try {
      const webhook = await getWebhook(deps, actor, c.req.param('id'));
      const query = ListDeliveriesQuery.parse({ page: '1', per_page: '50' });
      const deliveries = await listDeliveries(deps, actor, webhook.id, query);
      return render(
        c,
        webhookPage(shellOf(c, assets.version), {
          webhook,
          deliveries: deliveries.data,
          total: deliveries.meta.total,
        }),
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      keepFlash(c);
      return c.redirect('/settings/webhooks', 303);
    }
  });

  app.post('/settings/webhooks/:id/active', async (c) => {
    const form = await c.req.parseBody({ all: true });
    const active = field(form, 'active') === 'true';
    const id = c.req.param('id');
    const back =
      new URL(c.req.header('referer') ?? 'http://x/').pathname === `/settings/webhooks/${id}`
        ? `/settings/webhooks/${id}`
        : '/settings/webhooks';
    return act(c, back, async () => {
      await updateWebhook(deps, c.get('actor'), id, { active });
      return {
        ok: active
          ? 'The webhook is active.'
          : 'The webhook is paused: nothing is sent until you activate it.',
      };
    });
  });

  app.post('/settings/webhooks/:id/delete', async (c) =>
    act(c, `/settings/webhooks/${c.req.param('id')}`, async () => {
      await deleteWebhook(deps, c.get('actor'), c.req.param('id'));
      return { to: '/settings/webhooks', ok: 'The webhook was deleted.' };
    }),
  );

  app.post('/settings/webhooks/:id/deliveries/:delivery/redeliver', async (c) => {
    const id = c.req.param('id');
    return act(c, `/settings/webhooks/${id}`, async () => {
      await redeliverDelivery(deps, c.get('actor'), id, c.req.param('delivery'));
      return { ok: 'Redelivery queued: it appears at the top of the list.' };
    });
  });

  /** "Send test event": one signed webhook.test now; the outcome is shown on the webhook's deliveries page. */
  app.post('/settings/webhooks/:id/test', async (c) => {
    const id = c.req.param('id');
    return act(c, `/settings/webhooks/${id}`, async () => {
      const r = await sendTestEvent(deps, c.get('actor'), id);
      const code = r.status_code !== undefined ? `status ${r.status_code}` : undefined;
      const outcome = [code, r.error, `${r.duration_ms} ms`].filter(Boolean).join(', ');
      if (r.delivered) return { ok: `Test event delivered (${outcome}).` };
      setFlash(c, { kind: 'error', text: `Test event not delivered (${outcome}).` });
      return undefined;
    });
  });
}
