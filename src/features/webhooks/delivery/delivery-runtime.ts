import type { Logger } from 'pino';
import type { Deps } from '../../../deps.ts';
import {
  createCachingLookup,
  createOutboundPolicy,
  type Lookup,
  type OutboundAgents,
  type OutboundPolicy,
} from '../outbound/guarded-request.ts';

/** What a delivery worker holds for its life: outbound policy, connections, DNS cache, lease length, logger. */
export interface Runtime {
  deps: Deps;
  workerId: string;
  policy: OutboundPolicy;
  agents: OutboundAgents;
  /** Guarded DNS answers cached briefly (every use is still vetted and pinned). */
  lookup: Lookup;
  leaseMs: number;
  logger: Logger;
}

/** The runtime of one worker (or one runDueDeliveries call); connections are the deps' outbound agents. */
export function createRuntime(deps: Deps, workerId: string): Runtime {
  const { webhooks, webhookDelivery } = deps.config;
  return {
    deps,
    workerId,
    policy: createOutboundPolicy({
      allowPrivateTargets: webhooks.allowPrivateTargets,
      allowHosts: webhookDelivery.allowHosts,
    }),
    agents: deps.outbound,
    lookup: createCachingLookup(),
    // Renewed every third of it while the attempt runs (delivery-pass.ts): short, so a killed worker's claims are taken
    // over soon, whatever the attempt timeout.
    leaseMs: webhookDelivery.leaseSeconds * 1000,
    logger: deps.logger.child({ component: 'webhooks', worker_id: workerId }),
  };
}
