import { type Html, html } from '../html.ts';
import { csrfField, page, type Shell, when } from '../layout.ts';

export interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  active: boolean;
}

export interface DeliveryRow {
  id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  created_at: string;
  redelivery_of?: string;
  attempts: {
    attempt: number;
    started_at: string;
    duration_ms?: number;
    status_code?: number;
    error?: string;
  }[];
}

function activeToggle(csrf: string, w: WebhookRow): Html {
  return html`<form method="post" action="/settings/webhooks/${w.id}/active" class="inline">
  ${csrfField(csrf)}
  <input type="hidden" name="active" value="${w.active ? 'false' : 'true'}">
  <button type="submit" role="switch" aria-checked="${w.active ? 'true' : 'false'}" class="switch">
    <span class="track" aria-hidden="true"></span> Active<span class="visually-hidden"> (${w.url})</span>
  </button>
</form>`;
}

/** "Send test event": a signed webhook.test to this webhook only; the outcome shows on its deliveries page. */
function testButton(csrf: string, w: WebhookRow): Html {
  return html`<form method="post" action="/settings/webhooks/${w.id}/test" class="inline">
  ${csrfField(csrf)}
  <button type="submit">Send test event<span class="visually-hidden"> to ${w.url}</span></button>
</form>`;
}

export function webhooksPage(
  shell: Shell,
  data: {
    webhooks: WebhookRow[];
    eventTypes: readonly string[];
    error?: string;
    form?: { url: string; events: string[] };
  },
): Html {
  return page(
    shell,
    { title: 'Webhooks', section: 'webhooks' },
    html`<h1>Webhooks</h1>
<p>Minutes POSTs each event to your URL, signed with the secret when you give one.${shell.mode === 'test' ? ' These are the test data space’s webhooks.' : ''}</p>
${data.error ? html`<p class="flash error" role="alert">${data.error}</p>` : ''}
<details${data.error ? html` open` : ''}>
  <summary class="button primary">Add webhook</summary>
  <form method="post" action="/settings/webhooks" class="stack compact">
    ${csrfField(shell.csrf)}
    <label for="wh-url">URL</label>
    <input id="wh-url" name="url" type="url" required placeholder="https://example.com/minutes" value="${data.form?.url ?? ''}">
    <fieldset><legend>Events</legend>
      ${data.eventTypes.map(
        (e) =>
          html`<label><input type="checkbox" name="events" value="${e}"${!data.form || data.form.events.includes(e) ? html` checked` : ''}> ${e}</label>`,
      )}
    </fieldset>
    <label for="wh-secret">Secret</label>
    <input id="wh-secret" name="secret" type="password" autocomplete="off" aria-describedby="secret-hint">
    <p class="hint" id="secret-hint">Optional, 16–256 characters. Used to sign deliveries; never shown again.</p>
    <button type="submit" class="primary">Add webhook</button>
  </form>
</details>
<h2>Your webhooks</h2>
${
  data.webhooks.length
    ? html`<ul class="cards">${data.webhooks.map(
        (w) => html`<li>
  <h3><a href="/settings/webhooks/${w.id}">${w.url}</a></h3>
  <p class="meta">${w.events.join(', ')}</p>
  ${activeToggle(shell.csrf, w)}
  ${testButton(shell.csrf, w)}
  <p><a href="/settings/webhooks/${w.id}">Deliveries<span class="visually-hidden"> of ${w.url}</span></a></p>
</li>`,
      )}</ul>`
    : html`<p class="hint">No webhooks yet.</p>`
}`,
  );
}

export function webhookPage(
  shell: Shell,
  data: { webhook: WebhookRow; deliveries: DeliveryRow[]; total: number },
): Html {
  const w = data.webhook;
  return page(
    shell,
    { title: 'Webhook deliveries', section: 'webhooks' },
    html`<p class="crumbs"><a href="/settings/webhooks">Webhooks</a></p>
<h1>Deliveries to ${w.url}</h1>
<p class="meta">Events: ${w.events.join(', ')}</p>
${activeToggle(shell.csrf, w)}
${testButton(shell.csrf, w)}
<p class="count">${data.total} ${data.total === 1 ? 'delivery' : 'deliveries'}, newest first</p>
${
  data.deliveries.length
    ? html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempt</th><th scope="col">Status code</th><th scope="col">Duration</th><th scope="col">Error</th><th scope="col">Time</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${data.deliveries.map((d) => {
        const last = d.attempts[d.attempts.length - 1];
        return html`<tr>
  <td>${d.event_type}${d.redelivery_of ? html` <span class="hint">(redelivery)</span>` : ''}</td>
  <td>${d.status}</td>
  <td>${d.attempt_count}</td>
  <td>${last?.status_code ?? ''}</td>
  <td>${last?.duration_ms !== undefined ? `${last.duration_ms} ms` : ''}</td>
  <td>${last?.error ?? ''}</td>
  <td>${when(last?.started_at ?? d.created_at)}</td>
  <td><form method="post" action="/settings/webhooks/${w.id}/deliveries/${d.id}/redeliver">
    ${csrfField(shell.csrf)}
    <button type="submit">Redeliver<span class="visually-hidden"> ${d.event_type} of ${when(d.created_at)}</span></button>
  </form></td>
</tr>`;
      })}</tbody></table></div>`
    : html`<p class="hint">No deliveries yet. They appear here when an event this webhook listens to happens.</p>`
}
<section class="danger-zone" aria-labelledby="wh-delete-h"><h2 id="wh-delete-h">Delete</h2>
<details><summary class="danger">Delete webhook</summary>
<form method="post" action="/settings/webhooks/${w.id}/delete" class="stack compact">
  ${csrfField(shell.csrf)}
  <p>Deliveries not yet sent are cancelled and the delivery log is removed. This cannot be undone.</p>
  <button type="submit" class="danger">Delete permanently</button>
</form></details></section>`,
  );
}
