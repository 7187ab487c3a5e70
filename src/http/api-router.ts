import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './context.ts';
import { validationHook } from './validation.ts';

/** A router of API operations: invalid input answers the API's 400 error, the same on every route. */
export const apiRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
