import type { Migration } from '../migrate.ts';

/**
 * (ext) Secret rotation with an overlap: after `POST /v1/webhooks/:id/rotate-secret` the secret it replaced keeps
 * signing deliveries (a second `v1,` signature in `webhook-signature`) until `previous_secret_expires_at`, so
 * receivers can switch secrets without rejecting deliveries in between. Both columns are null outside a rotation.
 */
export const webhookSecretRotation: Migration = {
  version: 11,
  name: 'webhook-secret-rotation',
  statements: ({ ts }) => [
    'ALTER TABLE webhooks ADD COLUMN previous_secret TEXT',
    `ALTER TABLE webhooks ADD COLUMN previous_secret_expires_at ${ts}`,
  ],
};
