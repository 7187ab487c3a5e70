import { oauthErrorPage } from '../../../web/pages/oauth.pages.ts';
import { loadAssets } from '../dashboard/assets.ts';

let version: string | undefined;

/** The library's error page (bad client, bad redirect URI, expired interaction): ours, no stack, no redirect. */
export function renderOAuthErrorPage(error: string, description?: string): string {
  version ??= loadAssets().version;
  return oauthErrorPage(version, error, description).value;
}
