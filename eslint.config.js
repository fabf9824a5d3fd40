import neostandard from 'neostandard'

// One style for the whole repository (the service, its tests, the bench and packages/*): the
// standard style with TypeScript support, as Fastify's own projects use it.
export default neostandard({
  ts: true,
  ignores: ['dist/**', 'coverage/**', '.tap/**', '**/node_modules/**', '**/.cache/**']
})
