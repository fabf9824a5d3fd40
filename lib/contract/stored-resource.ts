/** Longest resource kept in the store: enough for any real route, never a client's padding. */
export const MAX_STORED_RESOURCE_LENGTH = 256

/**
 * What the store keeps of a requested resource: its path (an absolute URL keeps its origin), no
 * query string, capped in length, so a request cannot grow a row with its URL.
 */
export function storedResource (url: string): string {
  const query = url.indexOf('?')
  return (query === -1 ? url : url.slice(0, query)).slice(0, MAX_STORED_RESOURCE_LENGTH)
}
