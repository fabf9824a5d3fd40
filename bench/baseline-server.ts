// The baseline: bare Fastify 5 (default options, no plugins, no logger), one GET route per entry of
// BASELINE_BODIES ({ "/path": bytes }) answering a JSON object that serializes to exactly that many bytes.
import Fastify from 'fastify'

/** `{"padding":"xxx…"}` of exactly `bytes` bytes. */
function bodyOfSize (bytes: number): { padding: string } {
  const overhead = JSON.stringify({ padding: '' }).length
  if (bytes < overhead) throw new Error(`a JSON body cannot be smaller than ${overhead} bytes`)
  return { padding: 'x'.repeat(bytes - overhead) }
}

const bodies = JSON.parse(process.env.BASELINE_BODIES ?? '{}') as Record<string, number>
const fastify = Fastify()
for (const [path, bytes] of Object.entries(bodies)) {
  const body = bodyOfSize(bytes)
  fastify.get(path, async () => body)
}
await fastify.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) })
process.send?.('ready')
process.on('SIGTERM', () => { fastify.close().finally(() => process.exit(0)) })
