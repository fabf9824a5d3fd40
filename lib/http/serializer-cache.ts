import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler'

type Serializer = ReturnType<ReturnType<SerializerFactory>>

/** Enough for every response schema of several apps built side by side; emptied at once when full. */
const MAX_SERIALIZERS = 2_000

const serializers = new Map<string, Serializer>()

/**
 * Fastify's own response serializer factory (fast-json-stringify), remembering what it compiled by
 * the schema's content and the shared schemas it may reference, for the life of the process. One
 * server compiles each schema once anyway; an app built again in the same process (every test
 * file builds several) finds its serializers compiled: the compile was most of a build's time
 * (1.2–2.0 s of CPU per build). The key is the content, never the object, so a schema changed
 * between two builds compiles anew.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options)
  const sharedKey = JSON.stringify([externalSchemas, options])
  return (route) => {
    const key = sharedKey + JSON.stringify(route.schema)
    const known = serializers.get(key)
    if (known !== undefined) return known
    if (serializers.size >= MAX_SERIALIZERS) serializers.clear()
    const serializer = compile(route)
    serializers.set(key, serializer)
    return serializer
  }
}
