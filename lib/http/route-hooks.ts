/** A route option's hooks as a list: Fastify takes none, one, or an array. */
export function hookList<T> (value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}
