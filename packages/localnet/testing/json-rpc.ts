// Raw JSON-RPC over fetch for tests that must see the exact wire shapes (kit would turn them into bigints).
export interface RawResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

let nextId = 1

export async function postRaw (url: string, payload: unknown): Promise<RawResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  })
  const text = await response.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, body, text }
}

/** One call; resolves to the whole envelope ({jsonrpc, result|error, id}). */
export async function rpcCall (url: string, method: string, params?: unknown[]): Promise<any> {
  const request: Record<string, unknown> = { jsonrpc: '2.0', id: nextId++, method }
  if (params !== undefined) request.params = params
  return (await postRaw(url, request)).body
}

export async function rpcBatch (url: string, calls: Array<{ method: string; params?: unknown[] }>): Promise<any[]> {
  const requests = calls.map((call) => ({ jsonrpc: '2.0', id: nextId++, method: call.method, params: call.params ?? [] }))
  return (await postRaw(url, requests)).body
}
