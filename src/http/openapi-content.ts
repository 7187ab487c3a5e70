// The content entries of route specs, so that every operation documents JSON the same way.

/** A JSON response of the document: its description, its schema and, when given, an example. */
export const jsonResponse = <T>(schema: T, description: string, example?: unknown) => ({
  description,
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});

/** The required JSON body of an operation. */
export const jsonRequestBody = <T>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});
