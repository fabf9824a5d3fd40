// HTTP + JSON-RPC 2.0 front: POST only, single requests and batches, errors as HTTP 200 with a JSON-RPC
// error object like a node. Also the test hooks: per-method call counts, injected failures, latency.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { RpcError, INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR } from './rpc-errors.js'
import { stringifyRpcJson } from './encoding/json.js'
import { paramsArray } from './methods/params.js'
import type { MethodContext, MethodHandler } from './methods/index.js'

export type FailureBehaviour = { code: number; message: string } | { httpStatus: number; retryAfter?: number }

const MAX_BODY_BYTES = 50 * 1024 * 1024

interface JsonRpcResponse {
  jsonrpc: '2.0';
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  id: unknown;
}

class HttpFailure {
  constructor (readonly status: number, readonly retryAfter?: number) {}
}

export class RpcServer {
  private server?: Server
  private readonly calls = new Map<string, number>()
  private readonly failures = new Map<string, FailureBehaviour>()
  private latencyMs = 0

  constructor (
    private readonly methods: Readonly<Record<string, MethodHandler>>,
    private readonly context: MethodContext
  ) {}

  async listen (port: number, host: string): Promise<string> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' })
        response.end(String(error))
      })
    })
    // keep-alive sockets would otherwise hold close() open until they time out
    server.keepAliveTimeout = 5_000
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
    this.server = server
    const address = server.address() as AddressInfo
    return `http://${host}:${address.port}`
  }

  async close (): Promise<void> {
    const server = this.server
    if (!server) return
    this.server = undefined
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }

  stats (): Record<string, number> {
    return Object.fromEntries(this.calls)
  }

  resetStats (): void {
    this.calls.clear()
  }

  failMethod (method: string, behaviour: FailureBehaviour | null): void {
    if (behaviour === null) this.failures.delete(method)
    else this.failures.set(method, behaviour)
  }

  setLatency (ms: number): void {
    this.latencyMs = Math.max(0, ms)
  }

  private async handle (request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST') {
      const status = request.method === 'OPTIONS' ? 200 : 405
      response.writeHead(status, { 'content-type': 'text/plain', allow: 'POST, OPTIONS' })
      response.end(status === 405 ? 'Used HTTP Method is not allowed. POST or OPTIONS is required' : '')
      return
    }
    const body = await readBody(request)
    if (body === null) {
      response.writeHead(413, { 'content-type': 'text/plain' })
      response.end('Payload Too Large')
      return
    }
    let outcome: { status: number; headers: Record<string, string>; body: string }
    try {
      const payload = await this.dispatchBody(body)
      outcome = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: payload }
    } catch (error) {
      if (!(error instanceof HttpFailure)) throw error
      outcome = httpFailureResponse(error)
    }
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs))
    response.writeHead(outcome.status, outcome.headers)
    response.end(outcome.body)
  }

  private async dispatchBody (body: string): Promise<string> {
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      return stringifyRpcJson(errorResponse(null, new RpcError(PARSE_ERROR, 'Parse error')))
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return stringifyRpcJson(errorResponse(null, new RpcError(INVALID_REQUEST, 'Invalid request')))
      const responses: JsonRpcResponse[] = []
      // sequentially: transactions in a batch land in order, like one client sending them one by one
      for (const item of parsed) {
        const answer = await this.dispatchOne(item)
        if (answer) responses.push(answer)
      }
      return responses.length > 0 ? stringifyRpcJson(responses) : ''
    }
    const answer = await this.dispatchOne(parsed)
    return answer ? stringifyRpcJson(answer) : ''
  }

  /** One request object; undefined for a notification (no id), which gets no answer. */
  private async dispatchOne (request: unknown): Promise<JsonRpcResponse | undefined> {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return errorResponse(null, new RpcError(INVALID_REQUEST, 'Invalid request'))
    }
    const { jsonrpc, method, params } = request as Record<string, unknown>
    const hasId = 'id' in request
    const id = (request as Record<string, unknown>).id ?? null
    if (jsonrpc !== '2.0' || typeof method !== 'string') return errorResponse(id, new RpcError(INVALID_REQUEST, 'Invalid request'))
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1)

    const failure = this.failures.get(method)
    if (failure && 'httpStatus' in failure) throw new HttpFailure(failure.httpStatus, failure.retryAfter)
    let answer: JsonRpcResponse
    if (failure) {
      answer = errorResponse(id, new RpcError(failure.code, failure.message))
    } else {
      const handler = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined
      if (!handler) {
        answer = errorResponse(id, new RpcError(METHOD_NOT_FOUND, 'Method not found'))
      } else {
        try {
          answer = { jsonrpc: '2.0', result: await handler(paramsArray(params), this.context), id }
        } catch (error) {
          answer = errorResponse(id, error instanceof RpcError ? error : internalError(method, error))
        }
      }
    }
    return hasId ? answer : undefined
  }
}

function internalError (method: string, error: unknown): RpcError {
  console.error(`localnet: ${method} failed`, error)
  return new RpcError(INTERNAL_ERROR, 'Internal error')
}

function errorResponse (id: unknown, error: RpcError): JsonRpcResponse {
  const body: JsonRpcResponse['error'] = { code: error.code, message: error.message }
  if (error.data !== undefined) body.data = error.data
  return { jsonrpc: '2.0', error: body, id }
}

/** A 429 looks like the public endpoints' (JSON body with code 429 + Retry-After); others are plain text. */
function httpFailureResponse (failure: HttpFailure): { status: number; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {}
  if (failure.retryAfter !== undefined) headers['retry-after'] = String(failure.retryAfter)
  if (failure.status === 429) {
    headers['content-type'] = 'application/json; charset=utf-8'
    const body = { jsonrpc: '2.0', error: { code: 429, message: 'Too many requests for a specific RPC call' }, id: null }
    return { status: 429, headers, body: JSON.stringify(body) }
  }
  headers['content-type'] = 'text/plain'
  return { status: failure.status, headers, body: `HTTP ${failure.status}` }
}

function readBody (request: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) tooLarge = true
      else chunks.push(chunk)
    })
    request.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}
