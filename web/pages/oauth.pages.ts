import type { Mode } from '../../src/db/schema.ts';
import { SCOPE_DESCRIPTIONS } from '../../src/features/oauth/scope-descriptions.ts';
import { type Html, html } from '../html.ts';
import { csrfField, publicPage } from '../layout.ts';

export interface ConsentView {
  uid: string;
  csrf: string;
  email: string;
  clientName: string;
  redirectHost: string;
  scopes: readonly string[];
  mode: Mode;
}

/** The consent page: who asks, where the answer goes, what it may do (narrowable), in which data space. */
export function consentPage(v: string, view: ConsentView): Html {
  return publicPage(
    `Allow ${view.clientName}`,
    v,
    html`<h1>Allow ${view.clientName} to use Minutes?</h1>
<p>Signed in as <strong>${view.email}</strong>. After your answer you return to <strong>${view.redirectHost}</strong>.</p>
<form method="post" action="/oauth/consent/${view.uid}" class="stack">
  ${csrfField(view.csrf)}
  <fieldset>
    <legend>It may</legend>
    ${view.scopes.map(
      (scope) =>
        html`<label><input type="checkbox" name="scope" value="${scope}" checked> ${(SCOPE_DESCRIPTIONS as Record<string, string>)[scope] ?? scope} <code>${scope}</code></label>`,
    )}
  </fieldset>
  <fieldset>
    <legend>Data space</legend>
    <label><input type="radio" name="mode" value="live"${view.mode === 'live' ? html` checked` : ''}> Live data</label>
    <label><input type="radio" name="mode" value="test"${view.mode === 'test' ? html` checked` : ''}> Test data</label>
  </fieldset>
  <div class="actions">
    <button type="submit" name="decision" value="allow" class="primary">Allow</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </div>
</form>
<p class="hint">You can disconnect it at any time under Settings → MCP.</p>`,
  );
}

/** An OAuth error shown on our own page (never sent to an unverified redirect URI). */
export function oauthErrorPage(v: string, error: string, description?: string): Html {
  return publicPage(
    'Authorization failed',
    v,
    html`<h1>This authorization cannot continue</h1>
<p role="alert"><code>${error}</code>${description ? html`: ${description}` : ''}</p>
<p>Go back to the application and try connecting again.</p>`,
  );
}
