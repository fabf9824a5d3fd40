import { Task, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk'
import { UnsupportedOperationError } from '@a2a-js/sdk/errors'
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server'
import type { A2aTaskRepository } from '../../../db/contracts/a2a-tasks.js'
import { isEndedTask, isStoredTask } from './task-states.js'

/**
 * The SDK's TaskStore over the merchant's store (SQLite or PostgreSQL), so every instance sees the
 * same tasks. A task awaiting payment is not written: it is rebuilt from its id (`unpaidTask`).
 * Tasks are kept DELIVERY_RETENTION_SECONDS after their last change, then pruned.
 */
export function createMerchantTaskStore (repository: A2aTaskRepository, options: { retentionMs: number, unpaidTask: (id: string) => Task | undefined }): TaskStore {
  return {
    async save (task: Task, _context: ServerCallContext) {
      if (!isStoredTask(task)) return
      await repository.save({ id: task.id, body: JSON.stringify(Task.toJSON(task)), final: isEndedTask(task), retentionMs: options.retentionMs })
    },
    async load (taskId: string, _context: ServerCallContext) {
      const body = await repository.load(taskId)
      return body === undefined ? options.unpaidTask(taskId) : Task.fromJSON(JSON.parse(body))
    },
    // Tasks are private to whoever holds their id (no accounts): listing them would hand out other buyers' artifacts.
    async list (_params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
      throw new UnsupportedOperationError('ListTasks is not offered: a task is read with GetTask by whoever holds its id')
    }
  }
}
