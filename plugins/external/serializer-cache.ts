import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler'

type Serializer = ReturnType<ReturnType<SerializerFactory>>

/** Enough for every response schema of several apps built side by side; emptied at once when full. */
const MAX_SERIALIZERS = 2_000

const serializers = new Map<string, Serializer>()
/**
 * Each distinct set of shared schemas (about 150 KB of JSON) by a short number, so no key repeats
 * it. Numbers are never reused: a factory still holding one after the sets were emptied cannot
 * find a serializer compiled against other shared schemas.
 */
const sharedSchemaSets = new Map<string, number>()
let nextSharedSet = 0

/**
 * Fastify's own response serializer factory (fast-json-stringify), remembering what it compiled by
 * the schema's content and the shared schemas it may reference, for the life of the process. One
 * server compiles each schema once anyway; an app built again in the same process (every test
 * file builds several) finds its serializers compiled: the compile was most of a build's time
 * (1.2–2.0 s of CPU per build). The key is the content, never the object, so a schema changed
 * between two builds compiles anew (the server sets no serializerOpts, whose functions JSON would drop).
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options)
  const shared = JSON.stringify([externalSchemas, options])
  let setNumber = sharedSchemaSets.get(shared)
  if (setNumber === undefined) sharedSchemaSets.set(shared, setNumber = nextSharedSet++)
  const sharedKey = `${setNumber}:`
  return (route) => {
    const key = sharedKey + JSON.stringify(route.schema)
    const known = serializers.get(key)
    if (known !== undefined) return known
    if (serializers.size >= MAX_SERIALIZERS) {
      serializers.clear()
      sharedSchemaSets.clear()
    }
    const serializer = compile(route)
    serializers.set(key, serializer)
    return serializer
  }
}
