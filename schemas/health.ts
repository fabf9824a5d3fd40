import { Type } from '@sinclair/typebox'

export const HealthStatus = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'component name to up, down or unchecked' }))
}, { $id: 'HealthStatus' })
