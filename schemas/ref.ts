import { Type, type Static, type TSchema } from '@sinclair/typebox'

/**
 * A typed reference to a model registered with `$id`: the OpenAPI document gets a named
 * component and `$ref`, and TypeScript still checks what the handler returns.
 */
export function ref<T extends TSchema> (schema: T) {
  if (schema.$id === undefined) throw new Error('ref() needs a schema with $id')
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id))
}
