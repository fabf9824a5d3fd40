import { createServer } from 'node:net'

/**
 * Why the service could not listen on HOST:PORT, naming the setting to change; undefined for an
 * error that is not about the address.
 */
export function listenErrorProblem (error: unknown, port: number, host: string): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const where = `${host}:${port}`
  switch (code) {
    case 'EADDRINUSE': return `PORT: ${where} is in use by another process (EADDRINUSE); stop it or choose another PORT`
    case 'EACCES': return `PORT: ${where} needs privileges (EACCES); use a port above 1023 (a reverse proxy can serve 80 and 443)`
    case 'EADDRNOTAVAIL': return `HOST: ${host} is not an address of this machine (EADDRNOTAVAIL)`
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return `HOST: ${host} does not resolve (${code})`
    default: return undefined
  }
}

/**
 * Listens on HOST:PORT for a moment and lets go, so start-up learns that the address is usable
 * before it creates anything (keypair, database). Under PM2 cluster mode the primary holds the
 * port for every worker, and a worker's probe shares it. Port 0 always works.
 */
export async function listenProblem (port: number, host: string): Promise<string | undefined> {
  if (port === 0) return undefined
  const probe = createServer()
  return await new Promise(resolve => {
    probe.once('error', error => resolve(listenErrorProblem(error, port, host) ?? `PORT: cannot listen on ${host}:${port} (${error.message})`))
    probe.listen({ port, host }, () => probe.close(() => resolve(undefined)))
  })
}
