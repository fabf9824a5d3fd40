import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from '../project.js'

export interface MerchantProcess {
  /** Base URL the merchant listens on, e.g. http://127.0.0.1:43121. */
  url: string
  pid: number
  /** Everything the process wrote so far (pino JSON lines on stdout). */
  output (): { stdout: string, stderr: string }
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves with its exit code. */
  stop (graceMs?: number): Promise<number | null>
}

const TSX_LOADER = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href
const LISTENING = /"msg":"Server listening at (http:\/\/[^"]+)"/
const START_TIMEOUT_MS = 60_000

/**
 * Runs server.ts as its own process (node with tsx's loader, no wrapper, so signals reach it),
 * with only the given environment plus PATH. It runs in `cwd` so no developer .env is read.
 * Resolves once it logged 'token-merchant ready'.
 */
export async function startMerchantProcess (env: Record<string, string>, cwd: string): Promise<MerchantProcess> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, join(PROJECT_ROOT, 'server.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exited = once(child, 'exit').then(([code]) => code as number | null)

  const stop = async (graceMs = 5000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    try {
      return await exited
    } finally {
      clearTimeout(timer)
    }
  }

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`the merchant did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS)
    const check = () => {
      const listening = LISTENING.exec(stdout)
      if (listening !== null && stdout.includes('token-merchant ready')) finish(undefined, listening[1])
    }
    const onExit = (code: number | null) => finish(new Error(`the merchant exited with code ${code} before it was ready: ${stderr.trim() || stdout.trim()}`))
    function finish (error?: Error, address?: string) {
      clearTimeout(timer)
      child.stdout.off('data', check)
      child.off('exit', onExit)
      if (error === undefined) resolve(address as string)
      else reject(error)
    }
    child.stdout.on('data', check)
    child.once('exit', onExit)
  }).catch(async (error: unknown) => {
    await stop(1000)
    throw error
  })

  return { url, pid: child.pid as number, output: () => ({ stdout, stderr }), stop }
}
