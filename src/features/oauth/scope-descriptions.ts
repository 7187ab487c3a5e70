import type { Scope } from '../api-keys/scopes.ts';

/** What each scope lets a client do, in the person's words: the consent page and the OpenAPI oauth2 scheme. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'notes:read': 'Read your notes and transcripts',
  'notes:write': 'Change and delete notes, upload recordings',
  'recordings:read': 'Read recordings and download audio',
  search: 'Search your notes',
  'actions:read': 'Read action items',
  'actions:write': 'Change action items',
  'webhooks:manage': 'Manage webhooks',
};
