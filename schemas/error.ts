import { Type, type Static } from '@sinclair/typebox'

/** The one error body of every route. */
export const ErrorResponse = Type.Object({
  statusCode: Type.Integer({ description: 'HTTP status, repeated' }),
  error: Type.String({ description: 'HTTP reason phrase' }),
  message: Type.String({ description: 'human-readable explanation' }),
  code: Type.String({ description: 'stable machine-readable error code, from the table in the README', examples: ['NOT_FOUND'] }),
  requestId: Type.String({ description: 'id of the request (also in x-request-id), for support' })
}, { $id: 'Error', additionalProperties: true, description: 'Error body. Some codes add fields (for example `candidates` or `retryAfterSeconds`).' })

export type ErrorResponseBody = Static<typeof ErrorResponse>
