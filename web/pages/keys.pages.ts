import { type Html, html } from '../html.ts';
import { csrfField, page, type Shell, when } from '../layout.ts';

export interface KeyRow {
  id: string;
  name?: string;
  mode: 'live' | 'test';
  scopes: string[];
  start: string;
  created_at: string;
  last_used_at?: string;
  expires_at?: string;
  revoked_at?: string;
}

function state(k: KeyRow): string {
  if (k.revoked_at) return `Revoked ${when(k.revoked_at)}`;
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return `Expired ${when(k.expires_at)}`;
  return k.expires_at ? when(k.expires_at) : 'Never';
}

export function keysPage(
  shell: Shell,
  data: {
    keys: KeyRow[];
    scopes: readonly string[];
    created?: { key: string; name?: string };
    error?: string;
  },
): Html {
  const created = data.created
    ? html`<section class="flash ok" aria-labelledby="new-key-h">
  <h2 id="new-key-h">Your new key${data.created.name ? html` “${data.created.name}”` : ''}</h2>
  <p>Copy it now: it is shown only this once, and Minutes stores only its hash.</p>
  <div class="secret"><code id="new-key">${data.created.key}</code> <button type="button" data-copy="new-key">Copy</button></div>
</section>`
    : '';
  const active = (k: KeyRow) => !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= Date.now());
  return page(
    shell,
    { title: 'API keys', section: 'keys' },
    html`<h1>API keys</h1>
<p>Keys let programs and assistants use the REST API (<code>/v1</code>) and MCP (<code>/mcp</code>). A test key sees only the test data.</p>
${data.error ? html`<p class="flash error" role="alert">${data.error}</p>` : ''}
${created}
<details${data.error ? html` open` : ''}>
  <summary class="button primary">Create key</summary>
  <form method="post" action="/settings/keys" class="stack compact">
    ${csrfField(shell.csrf)}
    <label for="key-name">Name</label>
    <input id="key-name" name="name" maxlength="200" placeholder="e.g. Claude on my laptop">
    <fieldset><legend>Mode</legend>
      <label><input type="radio" name="mode" value="live"${shell.mode === 'live' ? html` checked` : ''}> Live</label>
      <label><input type="radio" name="mode" value="test"${shell.mode === 'test' ? html` checked` : ''}> Test</label>
    </fieldset>
    <fieldset><legend>Scopes</legend>
      <p class="hint">None checked means all scopes.</p>
      ${data.scopes.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"> ${s}</label>`)}
    </fieldset>
    <label for="key-expires">Expires</label>
    <input id="key-expires" name="expires" type="date" aria-describedby="expires-hint">
    <p class="hint" id="expires-hint">Optional. The key stops working at the start of that day (UTC).</p>
    <button type="submit" class="primary">Create key</button>
  </form>
</details>
<h2>Keys</h2>
${
  data.keys.length
    ? html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Mode</th><th scope="col">Scopes</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${data.keys.map(
        (k) => html`<tr>
  <td>${k.name ?? html`<span class="hint">(no name)</span>`}</td>
  <td>${k.mode === 'live' ? 'Live' : 'Test'}</td>
  <td>${k.scopes.length === data.scopes.length ? 'All' : k.scopes.join(', ')}</td>
  <td><code>${k.start}…</code></td>
  <td>${when(k.created_at)}</td>
  <td>${k.last_used_at ? when(k.last_used_at) : 'Never'}</td>
  <td>${state(k)}</td>
  <td>${
    active(k)
      ? html`<details><summary>Revoke<span class="visually-hidden"> ${k.name ?? k.start}</span></summary>
    <form method="post" action="/settings/keys/${k.id}/revoke">
      ${csrfField(shell.csrf)}
      <p>Programs using this key stop working at once. This cannot be undone.</p>
      <button type="submit" class="danger">Revoke key</button>
    </form></details>`
      : ''
  }</td>
</tr>`,
      )}</tbody></table></div>`
    : html`<p class="hint">No keys.</p>`
}`,
  );
}
