// `npm run coverage:lib`: the unit tests under test/lib count toward lib/ alone, in their own
// process (tap's coverage map); the floor in that script is checked on these figures.
export default () => 'lib/**/*.ts'
