/**
 * A JSON schema object as strict structured output requires it: every property required, no other allowed.
 * `required` lists the properties in their order, so the schema sent is the one written out by hand.
 */
export function strictObjectSchema<P extends Record<string, unknown>>(properties: P) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties) as (keyof P & string)[],
    properties,
  } as const;
}

/** An array of strict objects with these properties. */
export function strictArraySchema<P extends Record<string, unknown>>(properties: P) {
  return { type: 'array', items: strictObjectSchema(properties) } as const;
}
