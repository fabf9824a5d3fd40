import t from 'tap'
import { createCallCancellation } from '../../../../lib/doors/mcp/call-cancellation.js'

const notice = (requestId: unknown) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'gave up' } })

t.test('a notice names a call of its own session only; malformed ones are ignored', async t => {
  const cancelled: string[] = []
  const cancellation = createCallCancellation({ cancelCall: async ref => { cancelled.push(ref); return true } })
  const mine = cancellation.newSessionId()
  const theirs = cancellation.newSessionId()
  t.match(mine, /^[A-Za-z0-9_-]{32}$/)
  t.not(mine, theirs)

  await cancellation.cancelNoticed(mine, [notice(7), { jsonrpc: '2.0', method: 'tools/call', params: { requestId: 8 } }, notice({ not: 'an id' }), null])
  t.same(cancelled, [cancellation.callerRefOf(mine, 7)], 'one call cancelled: the notice with a usable id')
  t.ok(cancellation.cancelledHere(cancellation.callerRefOf(mine, 7)))
  t.notOk(cancellation.cancelledHere(cancellation.callerRefOf(theirs, 7)), 'the same JSON-RPC id under another session is another call')
  t.not(cancellation.callerRefOf(mine, 7), cancellation.callerRefOf(mine, '7'), 'a string id is not the number')

  await cancellation.cancelNoticed(undefined, notice(9))
  await cancellation.cancelNoticed('too-short', notice(9))
  t.equal(cancelled.length, 1, 'no session, or a malformed one: nothing cancelled')
  t.equal(cancellation.callerRefOf(undefined, 9), undefined)
})

t.test('a flood of notices: the newest are remembered, the oldest forgotten, each in constant time', async t => {
  const cancellation = createCallCancellation({ cancelCall: async () => false })
  const session = cancellation.newSessionId()
  // 25,000 notices in batches, past the 10,000 remembered: a full scan per notice would take seconds here.
  for (let batch = 0; batch < 5; batch++) {
    await cancellation.cancelNoticed(session, Array.from({ length: 5000 }, (_, i) => notice(batch * 5000 + i)))
  }
  t.ok(cancellation.cancelledHere(cancellation.callerRefOf(session, 24_999)), 'the newest')
  t.ok(cancellation.cancelledHere(cancellation.callerRefOf(session, 15_001)), 'within the last 10,000')
  t.notOk(cancellation.cancelledHere(cancellation.callerRefOf(session, 14_999)), 'older than the last 10,000: forgotten')
  t.notOk(cancellation.cancelledHere(cancellation.callerRefOf(session, 0)))
})
