import {
  guardedPost,
  type Lookup,
  type OutboundAgents,
  type OutboundPolicy,
  OutboundTimeoutError,
  TargetRefusedError,
} from '../outbound/guarded-request.ts';
import { buildDeliveryHeaders } from './sign-payload.ts';

/** Bytes of the response body kept in the attempt log. */
export const KEPT_RESPONSE_BYTES = 1024;

/** What one HTTP attempt came to. */
export type AttemptResult =
  | { outcome: 'delivered'; statusCode: number; durationMs: number; responseBody: string }
  | {
      outcome: 'failed';
      /** `refused`: the guard refused the target (a private address, at creation or after resolution). */
      reason: 'status' | 'redirect' | 'timeout' | 'network' | 'refused';
      statusCode?: number;
      error: string;
      durationMs: number;
      responseBody?: string;
      /** For the operator's log only: what a refused host resolved to (never stored in the attempt log). */
      detail?: string;
    };

export interface ExecuteDeliveryOptions {
  url: string;
  secret: string | null;
  /** A rotated-out secret still in its overlap window: it signs too (see buildDeliveryHeaders). */
  previousSecret?: string | null;
  eventId: string;
  eventType: string;
  /** The stored event JSON, sent byte for byte. */
  payload: string;
  timeoutMs: number;
  policy: OutboundPolicy;
  agents: OutboundAgents;
  /** Resolves the target's host (default: the system resolver); its answers are vetted on every attempt. */
  lookup?: Lookup;
  now?: () => number;
}

/**
 * POSTs the event once through the outbound guard and classifies the result: 2xx is delivered; a 3xx is a
 * failure (redirects are not followed), as is any other status, a timeout, a network error or a refused target.
 */
export async function executeDelivery(options: ExecuteDeliveryOptions): Promise<AttemptResult> {
  const now = options.now ?? Date.now;
  const body = Buffer.from(options.payload, 'utf8');
  const headers = buildDeliveryHeaders({
    eventId: options.eventId,
    eventType: options.eventType,
    body,
    secret: options.secret,
    previousSecrets: options.previousSecret ? [options.previousSecret] : [],
    timestamp: Math.floor(now() / 1000),
  });
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await guardedPost({
      url: options.url,
      headers,
      body,
      timeoutMs: options.timeoutMs,
      policy: options.policy,
      agents: options.agents,
      lookup: options.lookup,
      keepBodyBytes: KEPT_RESPONSE_BYTES,
    });
    const durationMs = elapsed();
    const responseBody = response.truncated ? `${response.body}…` : response.body;
    const status = response.status;
    if (status >= 200 && status < 300)
      return { outcome: 'delivered', statusCode: status, durationMs, responseBody };
    const failed = { outcome: 'failed' as const, statusCode: status, durationMs, responseBody };
    if (status >= 300 && status < 400) {
      return {
        ...failed,
        reason: 'redirect',
        error: `The receiver answered ${status}; redirects are not followed.`,
      };
    }
    return { ...failed, reason: 'status', error: `The receiver answered ${status}, not a 2xx status.` };
  } catch (error) {
    const durationMs = elapsed();
    if (error instanceof TargetRefusedError)
      return {
        outcome: 'failed',
        reason: 'refused',
        error: error.message,
        durationMs,
        ...(error.detail ? { detail: error.detail } : {}),
      };
    if (error instanceof OutboundTimeoutError) {
      return {
        outcome: 'failed',
        reason: 'timeout',
        error: `No complete response within ${options.timeoutMs} ms.`,
        durationMs,
      };
    }
    return { outcome: 'failed', reason: 'network', error: (error as Error).message, durationMs };
  }
}
