import { startEmbeddedPostgres } from '../test/fixtures/embedded-postgres.js'
import { runStore } from './store.js'
import pg from 'pg'
const server = await startEmbeddedPostgres({ durable: process.env.DURABLE !== 'no' })
const c = new pg.Client(server.url); await c.connect(); await c.query('CREATE DATABASE bench'); await c.end()
const url = server.url.replace(/\/postgres$/, '/bench')
process.env.STORE_CONCURRENCY = '32'
console.log(await runStore(url, 1, 5))
await server.remove()
