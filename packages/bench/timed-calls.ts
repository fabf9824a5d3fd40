// Calls the bench makes and times itself (fractional milliseconds, unlike autocannon's whole ones),
// with the CPU time of the answering process and of this one around them.
import type { Dispatcher } from 'undici'
import type { CallSample } from './figures.js'
import { cpuSeconds, machineCpuSeconds, ownCpuSeconds } from './processes.js'

/**
 * Runs `task` once per item with `concurrency` in flight, timing each; `serverPid` is the process
 * that answers, or the processes (their CPU time is read before and after, and summed).
 */
export async function timeEach<T> (items: readonly T[], concurrency: number, serverPid: number | readonly number[], task: (item: T) => Promise<string>): Promise<CallSample> {
  const serverCpuNow = () => [serverPid].flat().reduce((sum, pid) => sum + cpuSeconds(pid), 0)
  const serverCpu = serverCpuNow()
  const clientCpu = ownCpuSeconds()
  const machineCpu = machineCpuSeconds()
  const latencies: number[] = []
  const statusCodes: Record<string, number> = {}
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]
      const begin = performance.now()
      const outcome = await task(item).catch(() => 'errors')
      latencies.push(performance.now() - begin)
      statusCodes[outcome] = (statusCodes[outcome] ?? 0) + 1
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return {
    latencies,
    seconds: (performance.now() - started) / 1000,
    statusCodes,
    serverCpuSeconds: serverCpuNow() - serverCpu,
    clientCpuSeconds: ownCpuSeconds() - clientCpu,
    machineCpuSeconds: machineCpuSeconds() - machineCpu
  }
}

// undici's dump() reads at most 128 KB and then destroys the connection: a larger answer (the
// registry listing, the OpenAPI document) would be timed to its headers, on a new connection each.
const READ_EVERY_BYTE = { limit: Number.MAX_SAFE_INTEGER }

/**
 * GET `path` through `pool`; the answer is read to its end (not decoded: turning a 2.7 MB body
 * into a string would time this client, not the service) and its status returned.
 */
export async function getStatus (pool: Dispatcher, path: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await pool.request({ path, method: 'GET', headers })
  await response.body.dump(READ_EVERY_BYTE)
  return String(response.statusCode)
}
