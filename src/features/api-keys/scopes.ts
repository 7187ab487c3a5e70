import type { Mode } from '../../db/schema.ts';

/** The seven scopes of the spec. A key created without scopes has all of them. */
export const SCOPES = [
  'notes:read',
  'notes:write',
  'recordings:read',
  'search',
  'actions:read',
  'actions:write',
  'webhooks:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Who is calling: carried into every service call so REST, MCP and CLI share one permission check. */
export interface Actor {
  accountId: string;
  mode: Mode;
  scopes: ReadonlySet<Scope>;
  keyId: string;
}
