import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { postgresBin } from './test/postgres-server.js'

/** The workflow parser ships source maps without their sources: read it without them (quiet). */
const withoutSourceMaps = {
  name: 'workflow-parser-without-source-maps',
  enforce: 'pre' as const,
  load(id: string) {
    if (!/@actions[\\/]workflow-parser[\\/].*\.js$/.test(id)) return null
    return readFileSync(id, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '')
  },
}

/** What both projects share (each is its own inline project: none inherits the root's). */
const shared = {
  plugins: [withoutSourceMaps],
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks' as const,
    // A worker runs its test files one after another in one module graph: the sandbox's
    // modules are imported once a worker, not once a file (a third of a run's time went to
    // importing them again). Each test makes its own sandbox (test/helpers.ts setup), so no
    // state passes from file to file, and one left open is closed when its file ends
    // (test/file-setup.ts); a file that replaces a module (vi.mock) would leak into the next,
    // and none does (test/architecture.test.ts).
    isolate: false,
    setupFiles: ['test/file-setup.ts'],
    // GitHub's workflow parser imports its schema JSON without an import attribute, as bundlers
    // allow and Node does not: Vite transforms it (test/workflows.test.ts).
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
}

const everyTest = ['test/**/*.test.ts']
/**
 * What `npm run test:quick` (`--mode quick`) leaves to `npm test`: the browser suites, the
 * PostgreSQL engine's own, and the package's (it builds, packs and installs the package, then
 * type-checks a suite against it: minutes of the compiler, and no engine in it). A CLI
 * `--exclude` does not reach inline projects, hence the mode.
 */
const notQuick = ['test/*-browser.test.ts', 'test/postgres-*.test.ts', 'test/package.test.ts']
// examples/ run with `npm run test:examples` (their own configs; Playwright for the browser).
const notTests = ['examples/**', 'node_modules/**']

/**
 * What the `postgres` project leaves to the `memory` one: tests that would only run the same
 * thing again, because they are about the memory engine itself or never reach the state seam.
 * Every other suite (the API suites) runs on both engines with the same assertions.
 */
const memoryOnly = [
  // The memory engine itself: its store, indexes, data file, compaction and crash recovery
  // (a data file is the memory engine's durability; PostgreSQL's is the database).
  'test/store-*.test.ts',
  'test/state-seam.test.ts',
  'test/crash.test.ts',
  'test/attacks/sigkill.test.ts',
  'test/scenario-persistence.test.ts',
  // The memory engine's process: the heap policy of the CLI and its garbage collection, and
  // the heap a sandbox answering in process keeps (its journal's copies, not the engine's).
  'test/heap-policy.test.ts',
  'test/in-process-memory.test.ts',
  // Suites that pick their engine themselves: the PostgreSQL engine, replicas and cluster on
  // throwaway schemas of the test server, the migrate job and the banner's storage line.
  'test/postgres-*.test.ts',
  'test/migrate-cli.test.ts',
  'test/banner-storage.test.ts',
  // The cluster example's files (compose, HAProxy) are read, not run; its PostgreSQL health
  // check picks the engine itself.
  'test/cluster-example.test.ts',
  // No sandbox state at all: the source tree's import graph, the CI workflow, the README and
  // docs text, the package, the CLI's help and options (parsed before any state is opened).
  'test/architecture.test.ts',
  'test/workflows.test.ts',
  'test/gitignore.test.ts',
  'test/readme.test.ts',
  'test/package.test.ts',
  'test/cli-help.test.ts',
  'test/config-env.test.ts',
  // CLI processes started without --database (the memory engine): their flags, signals and
  // logs are the same whichever engine holds the state.
  'test/cli.test.ts',
  'test/cli-parent.test.ts',
  'test/log-flush.test.ts',
  'test/log-linger.test.ts',
  // Browser suites: the pages call the API and control routes the API suites check on both
  // engines; Chromium adds the page, not the engine, and costs a minute a suite.
  'test/*-browser.test.ts',
]

/**
 * Two projects, so `npx vitest run` (`npm test`) checks both engines: `memory` runs every test
 * on the default engine; `postgres` runs the API suites again with PARTNER_SANDBOX_TEST_ENGINE
 * set, each sandbox on a new schema of the run's throwaway PostgreSQL server (test/helpers.ts
 * engineOptions, test/postgres-setup.ts). Without PostgreSQL installed there is no `postgres`
 * project, and the run says so in one line. One project alone: `--project memory|postgres`.
 */
export default defineConfig(({ mode }) => ({
  test: {
    // One worker a core, two at least. Vitest's default keeps a core free (cores - 1: one
    // worker on a 2-core machine), but a test here spends much of its time waiting on a socket,
    // a child process, PostgreSQL or Chromium: on 2 cores one worker left the machine half
    // idle (539 s for the suite), two took 331 s, three 377 s (the CPU was full).
    maxWorkers: Math.max(2, availableParallelism()),
    // The default reporter, and a line every 30 s that says the run is alive (how far it is).
    reporters: ['default', './test/heartbeat-reporter.ts'],
    // Once for the run, whichever projects run: browser suites skipped for want of a browser
    // are reported in one line (test/browser.ts), the run's PostgreSQL server is started, and
    // the CLI the tests start is bundled from the sources (test/cli-build.ts).
    globalSetup: ['test/browser-setup.ts', 'test/postgres-setup.ts', 'test/cli-build.ts'],
    projects: [
      {
        ...shared,
        test: {
          ...shared.test,
          name: 'memory',
          include: everyTest,
          exclude: mode === 'quick' ? [...notTests, ...notQuick] : notTests,
          // Set, not inherited: a PARTNER_SANDBOX_TEST_ENGINE in the shell does not move it.
          env: { PARTNER_SANDBOX_TEST_ENGINE: 'memory' },
        },
      },
      ...(postgresBin() && mode !== 'quick'
        ? [
            {
              ...shared,
              test: {
                ...shared.test,
                name: 'postgres',
                include: everyTest,
                exclude: [...notTests, ...memoryOnly],
                env: { PARTNER_SANDBOX_TEST_ENGINE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
}))
