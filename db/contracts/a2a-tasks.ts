/**
 * A2A tasks (lib/doors/a2a/), the same on every engine: one row per task, its wire JSON as the SDK
 * serialises it, kept until `expires_at` (DELIVERY_RETENTION_SECONDS after its last change) so a
 * completed task's artifact can be read again with GetTask from any instance. A task awaiting
 * payment is never written (lib/doors/a2a/task-id.ts): only tasks whose payment was accepted, and
 * cancelled ones, are stored.
 */
export interface StoredTask {
  id: string
  /** The task as A2A JSON (the SDK's Task.toJSON). */
  body: string
  /** The task ended (completed, failed, cancelled, rejected): it is never written again, so a late write of a racing call cannot undo it. */
  final: boolean
  /** How long it is kept after this write. */
  retentionMs: number
  /** Unix ms; omitted: the database server's clock on PostgreSQL, this process's on SQLite. */
  now?: number
}

export interface A2aTaskRepository {
  /** Writes the task (insert, or replace unless the stored one is final), one atomic statement. */
  save (task: StoredTask): Promise<void>
  /** The task's JSON, unless it is unknown or past its retention. */
  load (id: string, now?: number): Promise<string | undefined>
  /** Deletes tasks past their retention (at most batchSize); returns how many went. */
  prune (now?: number, batchSize?: number): Promise<number>
}
