import { type Html, html } from '../html.ts';
import { csrfField, publicPage } from '../layout.ts';

export function signInPage(
  v: string,
  options: { csrf: string; next?: string; email?: string; error?: string; notice?: string },
): Html {
  return publicPage(
    'Sign in',
    v,
    html`<h1>Sign in</h1>
${options.notice ? html`<p class="flash ok" role="status">${options.notice}</p>` : ''}
${options.error ? html`<p class="flash error" role="alert" id="sign-in-error">${options.error}</p>` : ''}
<form method="post" action="/sign-in" class="stack">
  ${csrfField(options.csrf)}
  ${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}"${options.error ? html` aria-describedby="sign-in-error"` : ''}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit" class="primary">Sign in</button>
</form>
<p class="hint">No password yet, or forgot it? Run <code>npx minutes users reset-password</code> on the server for a new set-up link.</p>`,
  );
}

export function setupPage(
  v: string,
  options: { csrf: string; token: string; email: string; error?: string },
): Html {
  return publicPage(
    'Choose your password',
    v,
    html`<h1>Choose your password</h1>
<p>For <strong>${options.email}</strong>. You sign in with this email and password.</p>
${options.error ? html`<p class="flash error" role="alert" id="setup-error">${options.error}</p>` : ''}
<form method="post" action="/setup" class="stack">
  ${csrfField(options.csrf)}
  <input type="hidden" name="token" value="${options.token}">
  <input type="text" name="username" value="${options.email}" autocomplete="username" hidden>
  <label for="password">New password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required aria-describedby="password-hint">
  <p class="hint" id="password-hint">At least 10 characters.</p>
  <label for="confirm">Repeat the password</label>
  <input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="10" required>
  <button type="submit" class="primary">Set password</button>
</form>`,
  );
}

export function setupInvalidPage(v: string): Html {
  return publicPage(
    'Set-up link not valid',
    v,
    html`<h1>This set-up link is not valid</h1>
<p>It was used already, has expired (links are valid for 24 hours) or is incomplete.</p>
<p>Run <code>npx minutes users reset-password</code> on the server for a new link, or <a href="/sign-in">sign in</a>.</p>`,
  );
}
