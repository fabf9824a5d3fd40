// The suite's coverage is the service's own code, wherever a test reaches it (in process or in a
// server it starts): not the local chain, the bench or a build in dist/, whose share of the report
// changed from run to run with which child processes wrote theirs, so the floor in .taprc had to sit
// far under what the suite reaches (issue #56). `npm run coverage:lib` still measures lib/ alone.
const SERVICE_SOURCES = [
  'app.ts', 'server.ts', 'config.ts', 'check-config.ts', 'project.ts',
  'lib/**/*.ts', 'plugins/**/*.ts', 'routes/**/*.ts', 'schemas/**/*.ts', 'db/**/*.ts', 'client/**/*.ts'
]

export default () => SERVICE_SOURCES
