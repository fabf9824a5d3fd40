// tap runs each test file with tsx (`.taprc`: node-arg): esbuild with a disk cache starts a test file
// in a fraction of the time of tap's default ts-node, which transpiles every file again in every process.
// tsx leaves each file's source out of its source map unless it sees NODE_V8_COVERAGE, and tap measures
// coverage through the inspector instead, so c8 could not map a single line back. The variable is set
// only while tsx loads (its loader thread keeps its copy) and removed again, so that the processes a
// test starts do not write V8 coverage files of their own.
const coverageVariableWasSet = process.env.NODE_V8_COVERAGE !== undefined
if (!coverageVariableWasSet) process.env.NODE_V8_COVERAGE = 'tsx-keeps-sources'
await import('tsx')
if (!coverageVariableWasSet) delete process.env.NODE_V8_COVERAGE
