import type { TSchema } from '@sinclair/typebox'

type JsonSchema = Record<string, unknown>

/**
 * A TypeBox model as plain, self-contained JSON Schema for an MCP tool: MCP clients compile a tool's
 * `inputSchema` and `outputSchema` on their own, with nothing registered, so every `$ref` to a model
 * (`{ $ref: 'PriceRecord' }`, how the HTTP routes name OpenAPI components) is replaced by the model
 * itself, and the `$id`s go. TypeBox's symbol keys are dropped by the JSON round trip.
 */
export function selfContainedSchema (schema: TSchema, models: readonly TSchema[]): JsonSchema {
  const byId = new Map(models.map(model => [model.$id, model]))

  function inline (node: unknown, path: readonly string[]): unknown {
    if (Array.isArray(node)) return node.map(item => inline(item, path))
    if (typeof node !== 'object' || node === null) return node
    const { $ref, $id: _id, ...rest } = node as JsonSchema
    if (typeof $ref === 'string') {
      const model = byId.get($ref)
      if (model === undefined) throw new Error(`unknown model "${$ref}" referenced by an MCP tool schema`)
      if (path.includes($ref)) throw new Error(`model "${$ref}" refers to itself; it cannot be inlined`)
      return inline(model, [...path, $ref])
    }
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inline(value, path)]))
  }

  return JSON.parse(JSON.stringify(inline(schema, []))) as JsonSchema
}
