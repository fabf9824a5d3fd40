import t from 'tap'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, storeTarget } from '../fixtures/stores.js'

// A2A tasks: the same contract on both engines, over two instances sharing one database.
const postgres = lazyPostgres(t, startTestPostgres)
const T0 = Date.UTC(2026, 10, 28, 2, 0, 0)
const RETENTION_MS = 3_600_000

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const [a, b] = [await target.open(), await target.open()]

    t.equal(await a.a2aTasks.load('unknown', T0), undefined)
    await a.a2aTasks.save({ id: 'task-1', body: '{"id":"task-1","status":{"state":"TASK_STATE_WORKING"}}', final: false, retentionMs: RETENTION_MS, now: T0 })
    t.equal(await b.a2aTasks.load('task-1', T0 + 1), '{"id":"task-1","status":{"state":"TASK_STATE_WORKING"}}', 'written on one instance, read on the other')
    await b.a2aTasks.save({ id: 'task-1', body: '{"id":"task-1","status":{"state":"TASK_STATE_COMPLETED"}}', final: true, retentionMs: RETENTION_MS, now: T0 + 1000 })
    await a.a2aTasks.save({ id: 'task-1', body: '{"id":"task-1","late":true}', final: false, retentionMs: RETENTION_MS, now: T0 + 1000 })
    t.equal(await a.a2aTasks.load('task-1', T0 + 1001), '{"id":"task-1","status":{"state":"TASK_STATE_COMPLETED"}}', 'a save replaces the task; once it ended, a late write of a racing call does not')
    t.equal(await a.a2aTasks.load('task-1', T0 + 1000 + RETENTION_MS), undefined, 'past its retention (from its last change) it is gone')
    await a.a2aTasks.save({ id: 'task-2', body: '{}', final: false, retentionMs: RETENTION_MS * 2, now: T0 })
    t.equal(await a.a2aTasks.prune(T0 + RETENTION_MS + 1000, 10), 1, 'prune deletes what is past retention')
    t.equal(await b.a2aTasks.prune(T0 + RETENTION_MS + 1000, 10), 0)
    t.equal(await b.a2aTasks.load('task-2', T0 + RETENTION_MS + 1000), '{}', 'and keeps the rest')
  })
}
