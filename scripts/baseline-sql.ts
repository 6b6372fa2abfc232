// Prints the schema this build declares (src/state/postgres/baseline-ddl.ts): the text the
// baseline migration was written from. A new migration is written by hand, from the difference.
import { baselineDdl } from '../src/state/postgres/baseline-ddl.js'

process.stdout.write(baselineDdl())
