/**
 * The connection string with its password (and any password query parameter) replaced by ***,
 * for log lines and messages. Anything that is not a URL is not echoed at all.
 */
export function maskDatabaseUrl (url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|secret|key/i.test(key)) parsed.searchParams.set(key, '***')
    }
    return parsed.toString()
  } catch {
    return '(not a URL)'
  }
}

/** postgres:// or postgresql:// with a host (or a ?host= socket folder): what DATABASE_URL must look like. */
export function isPostgresUrl (value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && (url.hostname !== '' || url.searchParams.has('host'))
  } catch {
    return false
  }
}
