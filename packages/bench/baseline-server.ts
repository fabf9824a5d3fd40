// The baseline: bare Fastify 5 (default options, no plugins, no logger), one GET route per entry of
// BASELINE_ANSWERS_FILE ({ "/path": { status, body, headers? } }) answering exactly the service's bytes: the
// same JSON body text and the same status, so the two differ only in what the service does per request.
// An answer with `headers` also sends those (the service's own, as one constant set): a reference for
// what the bytes on the wire cost the framework, apart from the work behind them.
import Fastify from 'fastify'
import { readFileSync } from 'node:fs'

const answers = JSON.parse(readFileSync(process.env.BASELINE_ANSWERS_FILE ?? '', 'utf8')) as Record<string, { status: number, body: string, headers?: Record<string, string> }>
const fastify = Fastify()
for (const [path, { status, body, headers }] of Object.entries(answers)) {
  const sent = headers ?? { 'content-type': 'application/json; charset=utf-8' }
  fastify.get(path, (_request, reply) => { reply.code(status).headers(sent).send(body) })
}
await fastify.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) })
process.send?.('ready')
process.on('SIGTERM', () => { fastify.close().finally(() => process.exit(0)) })
