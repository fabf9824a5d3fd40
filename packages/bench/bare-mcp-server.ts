// The MCP framing floor: the SDK's McpServer behind its StreamableHTTPServerTransport on node:http,
// stateless (a transport per request, as the SDK requires; servers reused), one tool answering a
// constant. What an MCP tool call costs over HTTP with nothing behind it.
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'

const ANSWER = { token: 'SOL', priceUsd: '150.00' }
const idle: McpServer[] = []

function newServer (): McpServer {
  const server = new McpServer({ name: 'bare', version: '1.0.0' })
  server.registerTool('constant', { description: 'A constant answer' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify(ANSWER) }],
    structuredContent: ANSWER
  }))
  return server
}

const http = createServer((request, response) => {
  let body = ''
  request.setEncoding('utf8')
  request.on('data', chunk => { body += chunk })
  request.on('end', () => {
    const server = idle.pop() ?? newServer()
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    response.on('close', () => { transport.close().then(() => idle.push(server), () => {}) })
    server.connect(transport)
      .then(async () => await transport.handleRequest(request, response, JSON.parse(body)))
      .catch(() => { if (!response.headersSent) response.writeHead(500).end() })
  })
})
http.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => process.send?.('ready'))
process.on('SIGTERM', () => { http.close(() => process.exit(0)) })
