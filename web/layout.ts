import { type Html, html } from './html.ts';

export type Section = 'notes' | 'upload' | 'action-items' | 'keys' | 'webhooks' | 'mcp';

/** What the shell of a signed-in page needs. */
export interface Shell {
  csrf: string;
  mode: 'live' | 'test';
  email: string;
  flash?: { kind: 'ok' | 'error'; text: string };
  /** `?v=` of the asset URLs, so they can be cached for good. */
  assetVersion: string;
}

const NAV: [Section, string, string][] = [
  ['notes', 'Notes', '/'],
  ['upload', 'Upload', '/upload'],
  ['action-items', 'Action items', '/action-items'],
  ['keys', 'Settings', '/settings/keys'],
];

function head(title: string, assetVersion: string): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Minutes</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css?v=${assetVersion}">
<script src="/assets/app.js?v=${assetVersion}" defer></script>
</head>`;
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

/** A signed-in page: skip link, header with navigation, the Test mode switch and Sign out, the banner. */
export function page(shell: Shell, options: { title: string; section: Section }, body: Html): Html {
  const settings = options.section === 'keys' || options.section === 'webhooks' || options.section === 'mcp';
  const test = shell.mode === 'test';
  return html`<!doctype html>
<html lang="en">
${head(options.title, shell.assetVersion)}
<body class="${test ? 'test-mode' : ''}">
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/">Minutes</a>
  <nav aria-label="Main">
    <ul>
      ${NAV.map(
        ([section, label, href]) =>
          html`<li><a href="${href}"${section === options.section || (section === 'keys' && settings) ? html` aria-current="page"` : ''}>${label}</a></li>`,
      )}
    </ul>
  </nav>
  <div class="account">
    <form method="post" action="/mode" class="mode-switch">
      ${csrfField(shell.csrf)}
      <input type="hidden" name="mode" value="${test ? 'live' : 'test'}">
      <button type="submit" role="switch" aria-checked="${test ? 'true' : 'false'}" class="switch">
        <span class="track" aria-hidden="true"></span> Test mode
      </button>
    </form>
    <form method="post" action="/sign-out">
      ${csrfField(shell.csrf)}
      <button type="submit" class="link" title="Signed in as ${shell.email}">Sign out</button>
    </form>
  </div>
</header>
${test ? html`<div class="banner" role="note"><strong>Test mode</strong>: you are viewing the account’s test data. Live notes, action items and webhooks are not shown or changed.</div>` : ''}
<main id="main">
${settings ? settingsNav(options.section) : ''}
${shell.flash ? html`<p class="flash ${shell.flash.kind}" role="${shell.flash.kind === 'error' ? 'alert' : 'status'}">${shell.flash.text}</p>` : ''}
${body}
</main>
<footer class="bottom"><a href="/docs">API reference</a> · <a href="/v1/openapi.json">OpenAPI</a></footer>
</body>
</html>`;
}

function settingsNav(section: Section): Html {
  const items: [Section, string, string][] = [
    ['keys', 'API keys', '/settings/keys'],
    ['webhooks', 'Webhooks', '/settings/webhooks'],
    ['mcp', 'MCP', '/settings/mcp'],
  ];
  return html`<nav aria-label="Settings" class="subnav"><ul>${items.map(
    ([s, label, href]) =>
      html`<li><a href="${href}"${s === section ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`;
}

/** A page before sign-in (sign-in, set-up): no navigation. */
export function publicPage(title: string, assetVersion: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
${head(title, assetVersion)}
<body>
<main id="main" class="narrow">
<p class="brand">Minutes</p>
${body}
</main>
</body>
</html>`;
}

/** "24 Nov 2026, 14:05 UTC" */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })}, ${d.toISOString().slice(11, 16)} UTC`;
}

export function duration(seconds: number): string {
  if (!seconds) return '';
  const m = Math.round(seconds / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.max(1, m)} min`;
}
