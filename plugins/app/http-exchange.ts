import type { FastifyReply, FastifyRequest } from 'fastify'
import type { HttpAnswer } from '../../lib/http/http-answer.js'
import type { HttpExchange } from '../../lib/doors/http-door.js'
import type { PaidDelivery } from '../../lib/delivery/paid-delivery.js'

/**
 * A Fastify request and its reply as the HTTP door's exchange (lib/doors/http-door.ts): the door
 * reads and answers through it and names no Fastify type. Getters, not copies: the status and
 * headers are read when the door asks (the handler's answer, after it ran).
 */
export class FastifyExchange implements HttpExchange {
  constructor (private readonly request: FastifyRequest, private readonly reply: FastifyReply) {}

  get method () { return this.request.method }
  get url () { return this.request.url }
  get headers () { return this.request.headers }
  get params () { return this.request.params }
  get protocol () { return this.request.protocol }
  get host () { return this.request.host }
  get ip () { return this.request.ip }
  get id () { return this.request.id }
  get log () { return this.request.log }
  get statusCode () { return this.reply.statusCode }

  get contentType () {
    const value = this.reply.getHeader('content-type')
    return value === undefined ? undefined : String(value)
  }

  get outcome () { return this.request.outcome }
  set outcome (code: string | undefined) { this.request.outcome = code }

  get payment () { return this.request.payment }
  set payment (delivery: PaidDelivery | undefined) { this.request.payment = delivery }

  send (answer: HttpAnswer): void {
    this.reply.code(answer.statusCode).headers(answer.headers).send(answer.body)
  }

  setAnswer (headers: Record<string, string>, statusCode?: number): void {
    if (statusCode !== undefined) this.reply.code(statusCode)
    this.reply.headers(headers)
  }

  whenFinished (then: (reached: boolean) => void): void {
    const raw = this.reply.raw
    const answered = (reached: boolean) => {
      raw.off('finish', finished).off('close', closed)
      then(reached)
    }
    // 'finish' when the answer went out (light-my-request emits only that, and never sets
    // writableFinished), 'close' when the client left first.
    const finished = () => answered(true)
    const closed = () => answered(raw.writableFinished)
    raw.once('finish', finished).once('close', closed)
  }
}
